import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// Every error is a Parse error: unknown routes, refused methods, and requests the HTTP parser
/// refuses answer a `{code, error}` body.
@Suite("Route errors")
struct RouteErrorTests {
    @Test func unknownRoutesAnswer404WithAParseBody() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.get("/nothing/here"), status: 404, code: 108)
            Support.expectError(try await client.get("/classes/A/b/c"), status: 404, code: 108)
            let outsideTheMount = try await client.raw(.get, "/../../elsewhere", headers: Support.clientHeaders(), body: nil)
            Support.expectError(outsideTheMount, status: 404, code: 108)
        }
    }

    @Test func refusedMethodsAnswer405WithAParseBody() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.request(.patch, "/classes/Posts"), status: 405, code: 119)
            Support.expectError(try await client.request(.delete, "/login"), status: 405, code: 119)
            Support.expectError(try await client.request(.put, "/batch"), status: 405, code: 119)
            Support.expectError(try await client.request(.delete, "/health"), status: 405, code: 119)
            Support.expectError(try await client.request(.get, "/functions/hello"), status: 405, code: 119)
        }
    }

    /// Over a real socket, since the HTTP parser is the point: headers and URLs past its bounds,
    /// and bytes that are not HTTP.
    @Test func requestsTheParserRefusesAnswerWithAParseBody() async throws {
        try await LiveServer.with { server in
            let padding = String(repeating: "a", count: 100_000)
            for request in [
                "GET /parse/classes/Posts HTTP/1.1\r\nHost: x\r\nX-Padding: \(padding)\r\n\r\n",
                "GET /parse/classes/Posts?where=\(padding) HTTP/1.1\r\nHost: x\r\n\r\n",
            ] {
                let answer = try await RawConnection.exchange(port: server.port, request).answer
                #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(200))")
                #expect(answer.hasSuffix(#"{"code":107,"error":"request headers or URL too large"}"#), "\(answer)")
            }
            let garbage = try await RawConnection.exchange(port: server.port, "NOT HTTP AT ALL\r\n\r\n").answer
            #expect(garbage.hasPrefix("HTTP/1.1 400"), "\(garbage)")
            #expect(garbage.hasSuffix(#"{"code":107,"error":"malformed HTTP request"}"#), "\(garbage)")
        }
    }
}
