import Cloudlet
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer
import CloudletServerTesting

/// Bodies read before their app and keys are known (the JavaScript SDK's body form), over a real
/// socket: bounded in size before a byte is read, and in number across the host.
@Suite("Bodies read before their app and keys are known")
struct UnauthenticatedBodyTests {
    /// The head of a `POST` to `path` declaring `length` bytes of body, with `headers` lines.
    static func head(_ path: String, length: Int, _ headers: String = "") -> String {
        "POST /parse/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\(headers)\r\n"
    }

    /// The first answer to `head` sent alone, its body never sent.
    static func answerWithoutBody(port: Int, _ head: String) async throws -> String {
        let connection = try await RawConnection(port: port)
        await connection.send(head)
        return await connection.answer()
    }

    /// `count` connections that each sent `start` and never the rest of its body.
    static func stalledReads(port: Int, _ count: Int, sending start: String) async throws -> [RawConnection] {
        var connections: [RawConnection] = []
        for _ in 0..<count {
            let connection = try await RawConnection(port: port)
            #expect(await connection.send(start))
            connections.append(connection)
        }
        return connections
    }

    @Test func aLongContentLengthIsRefusedBeforeTheBodyIsSent() async throws {
        try await FileTestServer.with(live: true) { server in
            let port = try #require(server.port)
            // No app id: the body form, bounded before its app is known (an upload's JSON form to
            // the base64 of the default upload limit).
            for (path, bound) in [("files/a.txt", ParseAPI.maximumBase64UploadBytes), ("classes/Posts", 1_048_576)] {
                let answer = try await Self.answerWithoutBody(port: port, Self.head(path, length: 30_000_000))
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer)")
                #expect(answer.contains(#"{"code":116,"error":"request body is larger than \#(bound) bytes"}"#), "\(path): \(answer)")
            }
            // App and keys in the headers: the route's own bound, still before a byte is read.
            let keys = "X-Parse-Application-Id: a\r\nX-Parse-REST-API-Key: client-a\r\n"
            let save = try await Self.answerWithoutBody(port: port, Self.head("classes/Posts", length: 2_000_000, keys))
            #expect(save.hasPrefix("HTTP/1.1 413") && save.contains(#""code":116"#), "\(save)")
            let upload = try await Self.answerWithoutBody(port: port, Self.head("files/a.txt", length: 27_000_000, keys))
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
            // The JSON form of an upload may pass the common bound, in a slot for large bodies; a
            // save may not.
            let large = Data(repeating: 7, count: 2 << 20).base64EncodedString()
            let bigUpload = try await server.a.raw(
                .post, "/files/big.bin", headers: [.contentType: "text/plain"],
                body: ByteBuffer(bytes: JSONWriter.bytes(["base64": .string(large), "_ApplicationId": "a", "_JavaScriptKey": "client-a"])))
            #expect(bigUpload.status == 201, "\(bigUpload.body)")
            let bigSave = try await server.a.raw(
                .post, "/classes/Posts", headers: [.contentType: "text/plain"],
                body: ByteBuffer(bytes: JSONWriter.bytes(["title": .string(large), "_ApplicationId": "a", "_JavaScriptKey": "client-a"])))
            Support.expectError(bigSave, status: 413, code: 116)
        }
    }

    @Test func oneMoreReadThanTheHostTakesIsRefusedWhileKeyedRequestsAreServed() async throws {
        try await FileTestServer.with(live: true) { server in
            let port = try #require(server.port)
            // Bodies that never finish: each holds one of the host's slots.
            var stalled = try await Self.stalledReads(
                port: port, UnauthenticatedBodyReads.maximumConcurrentReads, sending: Self.head("classes/Posts", length: 100) + #"{"_Applicat"#)
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

    @Test func largeBodiesHaveFewSlotsOfTheirOwn() async throws {
        try await FileTestServer.with(live: true) { server in
            let port = try #require(server.port)
            // Large JSON-form uploads that never finish: each holds one of the few large slots.
            let stalled = try await Self.stalledReads(
                port: port, UnauthenticatedBodyReads.maximumConcurrentLargeReads, sending: Self.head("files/big.bin", length: 4 << 20) + #"{"base64":"AAAA"#)
            // The server takes each stalled read's slot on its own event loop: a probe sent at once
            // could be read first, take a slot and leave a stalled read refused. Give them time.
            try await Task.sleep(for: .milliseconds(500))
            let head = Self.head("files/big.bin", length: 4 << 20)
            try await Support.eventually {
                let answer = try await Self.answerWithoutBody(port: port, head)
                return answer.hasPrefix("HTTP/1.1 503") && answer.contains(#""code":155"#)
            }
            // Small bodies in the body form still have their own slots.
            let bodyForm = ByteBuffer(string: #"{"title":"js","_ApplicationId":"a","_JavaScriptKey":"client-a"}"#)
            #expect(try await server.a.raw(.post, "/classes/Posts", headers: [.contentType: "text/plain"], body: bodyForm).status == 201)
            #expect(stalled.count == UnauthenticatedBodyReads.maximumConcurrentLargeReads)
        }
    }
}
