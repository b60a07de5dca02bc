import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Requests of an app over its quota, refused on the event loop before the router
/// (`QuotaRefusalHandler`), over a real socket on a manual clock.
@Suite("Refusals over the quota, before the router")
struct QuotaRefusalTests {
    /// Runs `body` with a live server on a manual clock hosting app `a` (2 requests a minute, the
    /// whole of it for one address) and app `b` (no limits).
    static func withLiveServer(_ body: @Sendable (LiveServer) async throws -> Void) async throws {
        let quota = RateLimitPolicy(quota: .init(count: 2, window: .seconds(60)), addressShare: 1)
        try await LiveServer.with(apps: [LiveServer.app("a", rateLimits: quota), LiveServer.app("b")], clock: ManualClock(), body)
    }

    /// A raw save of app `app` (`a` unless named).
    static func save(_ body: String, _ extraHeaders: String = "", app: String = "a") -> String {
        "POST /parse/classes/Posts HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: \(app)\r\nX-Parse-REST-API-Key: client-\(app)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(extraHeaders)\r\n\(body)"
    }

    @Test func anAppOverItsQuotaIsRefusedBeforeItsKeysAreReadAndOthersAreServed() async throws {
        try await Self.withLiveServer { server in
            let (a, b) = (server.client("a"), server.client("b"))
            #expect(try await a.post("/classes/Posts", ["n": 1]).status == 201)
            #expect(try await a.get("/classes/Posts").status == 200)
            let refused = try await a.post("/classes/Posts", ["n": 2])
            Support.expectError(refused, status: 429, code: 155)
            #expect(refused.headers[.retryAfter] == "30")
            #expect(refused.headers[HTTPField.Name("RateLimit-Policy")!] == "\"app\";q=2;w=60")
            #expect(refused.headers[HTTPField.Name("RateLimit")!] == "\"app\";r=0;t=60")
            // A wrong key makes no difference once the app's quota is used up: nothing of the
            // request is looked at past the app it names and its route.
            var wrongKey = Support.clientHeaders()
            wrongKey[HTTPField.Name("X-Parse-Application-Id")!] = "a"
            wrongKey[HTTPField.Name("X-Parse-REST-API-Key")!] = "wrong"
            Support.expectError(try await a.raw(.get, "/classes/Posts", headers: wrongKey, body: nil), status: 429, code: 155)
            for _ in 0..<5 { #expect(try await b.post("/classes/Posts", ["n": 1]).status == 201) }
            // A path that is no route is not the quota's to answer.
            Support.expectError(try await a.get("/nothing/here"), status: 404, code: 108)
            #expect(try await Support.masterCount(b, "Posts") == 5)

            let scraped = String(decoding: server.metrics.exposition(), as: UTF8.self)
            #expect(scraped.contains(#"cloudlet_rate_limited_total{app="a"} 2"#), "\(scraped)")
            #expect(scraped.contains(#"cloudlet_http_requests_total{app="a",route="/parse/classes/{className}",status="429"} 2"#))
        }
    }

    /// Pipelined on one connection after the quota is used up: each request is refused as its
    /// head arrives, a refused request's body is read and dropped (the next request still parses),
    /// and `Connection: close` closes the connection after its answer.
    @Test func pipelinedRefusalsDropTheirBodiesAndKeepTheConnection() async throws {
        try await Self.withLiveServer { server in
            let a = server.client("a")
            for n in 1...2 { #expect(try await a.post("/classes/Posts", ["n": .number(Double(n))]).status == 201) }
            let requests = [
                Self.save(#"{"n":3,"pad":"\#(String(repeating: "x", count: 20_000))"}"#), Self.save(#"{"n":4}"#),
                Self.save(#"{"n":5}"#, "Connection: close\r\n"),
            ]
            let (answer, closed) = try await RawConnection.exchange(port: server.port, requests.joined())
            let statuses = answer.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.1) }
            #expect(statuses == ["429", "429", "429"], "\(answer)")
            #expect(answer.components(separatedBy: #"{"code":155,"error":"Too many requests."}"#).count == 4, "\(answer)")
            let lastHead = answer.components(separatedBy: "HTTP/1.1 ").last ?? ""
            #expect(lastHead.lowercased().contains("connection: close"), "\(answer)")
            #expect(closed)
        }
    }

    /// A request pipelined behind one still being served is not answered before it: app `b`'s
    /// save goes first, and app `a`'s refusal comes after its answer, from the router.
    @Test func aRefusalWaitsForTheAnswersBeforeIt() async throws {
        try await Self.withLiveServer { server in
            let (a, b) = (server.client("a"), server.client("b"))
            for n in 1...2 { #expect(try await a.post("/classes/Posts", ["n": .number(Double(n))]).status == 201) }
            let requests = [Self.save(#"{"n":1}"#, app: "b"), Self.save(#"{"n":3}"#, "Connection: close\r\n")]
            let answer = try await RawConnection.exchange(port: server.port, requests.joined()).answer
            let statuses = answer.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.1) }
            #expect(statuses == ["201", "429"], "\(answer)")
            #expect(try await Support.masterCount(b, "Posts") == 1)
        }
    }
}
