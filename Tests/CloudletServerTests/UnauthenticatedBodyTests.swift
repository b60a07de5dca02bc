import Cloudlet
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import CloudletServer

/// Bodies read before their app and keys are known (the JavaScript SDK's body form), over a real
/// socket: bounded in size before a byte is read, and in number across the host.
@Suite("Bodies read before their app and keys are known")
struct UnauthenticatedBodyTests {
    /// The head of a `POST` to `path` declaring `length` bytes of body, with `headers` lines.
    static func head(_ path: String, length: Int, _ headers: String = "") -> String {
        "POST /parse/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\(headers)\r\n"
    }

    /// The first answer to `head` sent alone, its body never sent.
    static func answerWithoutBody(port: Int, _ head: String) throws -> String {
        let connection = try RawHTTP.Connection(port: port)
        try connection.send(head)
        return connection.answer() ?? "no answer while the body was not sent"
    }

    @Test func aLongContentLengthIsRefusedBeforeTheBodyIsSent() async throws {
        try await FileTestServer.with(live: true) { server in
            let port = try #require(server.port)
            // No app id: the body form, bounded before its app is known.
            for path in ["files/a.txt", "classes/Posts"] {
                let answer = try Self.answerWithoutBody(port: port, Self.head(path, length: 27_000_000))
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer)")
                #expect(answer.contains(#"{"code":116,"error":"request body is larger than 1048576 bytes"}"#), "\(path): \(answer)")
            }
            // App and keys in the headers: the route's own bound, still before a byte is read.
            let keys = "X-Parse-Application-Id: a\r\nX-Parse-REST-API-Key: client-a\r\n"
            let save = try Self.answerWithoutBody(port: port, Self.head("classes/Posts", length: 2_000_000, keys))
            #expect(save.hasPrefix("HTTP/1.1 413") && save.contains(#""code":116"#), "\(save)")
            let upload = try Self.answerWithoutBody(port: port, Self.head("files/a.txt", length: 27_000_000, keys))
            #expect(upload.hasPrefix("HTTP/1.1 413") && upload.contains(#""code":130"#), "\(upload)")
            #expect(try await server.a.post("/classes/Posts", ["n": 1]).status == 201)
        }
    }

    @Test func theBodyFormStillWorks() async throws {
        try await FileTestServer.with(live: true) { server in
            let save = try await server.a.raw(
                .post, "/classes/Posts", headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: #"{"title":"js","_ApplicationId":"a","_JavaScriptKey":"client-a"}"#))
            #expect(save.status == 201, "\(save.body)")
            let upload = try await server.a.raw(
                .post, "/files/note.txt", headers: [.contentType: "text/plain"],
                body: ByteBuffer(bytes: JSONWriter.bytes(["base64": "aGk=", "_ApplicationId": "a", "_JavaScriptKey": "client-a"])))
            #expect(upload.status == 201, "\(upload.body)")
            // The JSON form of an upload is held to the bound of a body read before its keys.
            let large = String(repeating: "A", count: UnauthenticatedBodyReads.maximumBytes)
            let tooLarge = try await server.a.raw(
                .post, "/files/big.bin", headers: [.contentType: "text/plain"],
                body: ByteBuffer(bytes: JSONWriter.bytes(["base64": .string(large), "_ApplicationId": "a", "_JavaScriptKey": "client-a"])))
            Support.expectError(tooLarge, status: 413, code: 116)
        }
    }

    @Test func oneMoreReadThanTheHostTakesIsRefusedWhileKeyedRequestsAreServed() async throws {
        try await FileTestServer.with(live: true) { server in
            let port = try #require(server.port)
            // Bodies that never finish: each holds one of the host's slots.
            var stalled = try (0..<UnauthenticatedBodyReads.maximumConcurrentReads).map { _ in
                let connection = try RawHTTP.Connection(port: port)
                try connection.send(Self.head("classes/Posts", length: 100) + #"{"_Applicat"#)
                return connection
            }
            let bodyForm = ByteBuffer(string: #"{"title":"js","_ApplicationId":"a","_JavaScriptKey":"client-a"}"#)
            var refused: ParseTestClient.Reply?
            try await Support.eventually {
                let reply = try await server.a.raw(.post, "/classes/Posts", headers: [.contentType: "text/plain"], body: bodyForm)
                if reply.status == 503 { refused = reply }
                return refused != nil
            }
            Support.expectError(try #require(refused), status: 503, code: 155)
            #expect(try await server.a.post("/classes/Posts", ["n": 1]).status == 201)
            #expect(try await server.b.get("/classes/Posts").status == 200)
            // Closed, the stalled connections give their slots back.
            stalled.removeAll()

            try await Support.eventually {
                try await server.a.raw(.post, "/classes/Posts", headers: [.contentType: "text/plain"], body: bodyForm).status == 201
            }
        }
    }
}
