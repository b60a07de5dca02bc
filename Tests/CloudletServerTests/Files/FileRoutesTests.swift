import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// `POST /files/:name`, `GET /files/:appId/:name` and `DELETE /files/:name` through the real router.
@Suite("Files over the router")
struct FileRoutesTests {
    static let bytes = Array("Hello, files! 0123456789".utf8)

    @Test(arguments: TestStore.allCases) func anUploadIsServedBackWithItsTypeTagAndLengthThenDeleted(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let reply = try await server.a.upload("hello.txt", Self.bytes, contentType: "text/plain")
            #expect(reply.status == 201)
            let name = try #require(reply["name"]?.stringValue)
            let url = try #require(reply["url"]?.stringValue)
            #expect(name.wholeMatch(of: /[0-9a-f]{32}_hello\.txt/) != nil, "stored name \(name)")
            #expect(url.hasSuffix("/parse/files/a/\(name)"))
            #expect(reply.headers[.location] == url)
            #expect(reply.body.objectValue?.keys.sorted() == ["name", "url"])

            let download = try await server.a.download(url)
            #expect(download.status == 200)
            #expect(download.bytes == Self.bytes)
            #expect(download.headers[.contentType] == "text/plain")
            #expect(download.headers[.contentLength] == String(Self.bytes.count))
            let etag = try #require(download.headers[.eTag])
            #expect(etag.wholeMatch(of: /"[0-9a-f]{32}"/) != nil)
            #expect(try await server.a.download(url, headers: [.ifNoneMatch: etag]).status == 304)

            let again = try await server.a.upload("hello.txt", Self.bytes, contentType: "text/plain")
            #expect(again["name"]?.stringValue != name, "every upload gets its own random prefix")

            Support.expectError(try await server.a.delete("/files/\(name)"), status: 403, code: 119)
            #expect(try await server.a.download(url).status == 200, "a client key deletes nothing")
            #expect(try await server.a.delete("/files/\(name)", master: true).status == 200)
            let gone = try await server.a.download(url)
            #expect(gone.status == 404)
            #expect(try JSONParser.parse(gone.bytes)["code"] == 101)
            Support.expectError(try await server.a.delete("/files/\(name)", master: true), status: 404, code: 153)
        }
    }

    @Test(arguments: TestStore.allCases) func rangesAnswerPartsAnd416PastTheEnd(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let (_, url) = try await server.upload("digits.txt", Self.bytes)
            let size = Self.bytes.count
            let cases: [(String, Range<Int>)] = [
                ("bytes=0-4", 0..<5), ("bytes=7-", 7..<size), ("bytes=-5", size - 5..<size), ("bytes=20-999", 20..<size),
            ]
            for (header, expected) in cases {
                let part = try await server.a.download(url, headers: [.range: header])
                #expect(part.status == 206, "\(header)")
                #expect(part.bytes == Array(Self.bytes[expected]), "\(header)")
                #expect(part.headers[.contentRange] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(size)")
                #expect(part.headers[.contentLength] == String(expected.count))
            }
            for unsatisfiable in ["bytes=\(size)-", "bytes=999-1000", "bytes=-0"] {
                let refused = try await server.a.download(url, headers: [.range: unsatisfiable])
                #expect(refused.status == 416, "\(unsatisfiable)")
                #expect(refused.headers[.contentRange] == "bytes */\(size)")
                #expect(try JSONParser.parse(refused.bytes)["code"] == 107)
            }
            for ignored in ["bytes=0-1,3-4", "items=0-3", "bytes=abc", "bytes=5-2"] {
                let whole = try await server.a.download(url, headers: [.range: ignored])
                #expect(whole.status == 200, "\(ignored)")
                #expect(whole.bytes == Self.bytes)
            }
        }
    }

    @Test(arguments: TestStore.allCases) func theJavaScriptSDKsBase64FormIsStoredToo(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 1, 2, 255]
            let body: ParseValue = [
                "base64": .string(Data(png).base64EncodedString()), "_ContentType": "image/png", "_ApplicationId": "a",
                "_JavaScriptKey": "client-a", "_ClientVersion": "js5.3.0", "fileData": ["metadata": [:], "tags": [:]],
            ]
            let reply = try await server.a.raw(
                .post, "/files/avatar.png", headers: [.contentType: "text/plain"], body: ByteBuffer(bytes: JSONWriter.bytes(body)))
            #expect(reply.status == 201, "\(reply.body)")
            let download = try await server.a.download(try #require(reply["url"]?.stringValue))
            #expect(download.bytes == png)
            #expect(download.headers[.contentType] == "image/png")

            let wrongKey = try await server.a.raw(
                .post, "/files/avatar.png", headers: [:],
                body: ByteBuffer(bytes: JSONWriter.bytes(["base64": "AAAA", "_ApplicationId": "a", "_JavaScriptKey": "wrong"])))
            Support.expectError(wrongKey, status: 403, code: 119)
            let notBase64 = try await server.a.raw(
                .post, "/files/avatar.png", headers: [:],
                body: ByteBuffer(bytes: JSONWriter.bytes(["base64": "%%%", "_ApplicationId": "a", "_JavaScriptKey": "client-a"])))
            Support.expectError(notBase64, status: 400, code: 130)
        }
    }

    @Test(arguments: TestStore.allCases) func aContentTypeIsGuessedFromTheExtensionWhenNoneIsSent(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let photo = try await server.a.upload("photo.JPG", [1, 2, 3], contentType: nil)
            #expect(try await server.a.download(try #require(photo["url"]?.stringValue)).headers[.contentType] == "image/jpeg")
            let other = try await server.a.upload("data.bin", [1, 2, 3], contentType: nil)
            #expect(try await server.a.download(try #require(other["url"]?.stringValue)).headers[.contentType] == "application/octet-stream")
        }
    }

    @Test(arguments: TestStore.allCases) func anUploadWithTwoContentTypesIsStoredWithTheFirstAsParseServerDoes(store: TestStore) async throws {
        try await FileTestServer.with(live: true, store: store) { server in
            var headers: HTTPFields = [Support.appIdHeader: "a", Support.restKeyHeader: "client-a"]
            headers.append(HTTPField(name: .contentType, value: "image/jpeg"))
            headers.append(HTTPField(name: .contentType, value: "application/json"))
            let reply = try await server.a.raw(.post, "/files/photo.jpg", headers: headers, body: ByteBuffer(bytes: [0xFF, 0xD8]))
            #expect(reply.status == 201, "\(reply.body)")
            let download = try await server.a.download(try #require(reply["url"]?.stringValue))
            #expect(download.headers[.contentType] == "image/jpeg")
            #expect(download.bytes == [0xFF, 0xD8])
        }
    }

    @Test(arguments: TestStore.allCases) func headOnAFileAnswersItsHeadersWithoutItsBytesAsHeadOnOtherReadsDoes(store: TestStore) async throws {
        try await FileTestServer.with(live: true, store: store) { server in
            let (name, _) = try await server.upload("hello.txt", Self.bytes, contentType: "text/plain")
            let head = try await server.a.raw(.head, "/files/a/\(name)", headers: [:], body: nil)
            #expect(head.status == 200)
            #expect(head.headers[.contentLength] == String(Self.bytes.count))
            #expect(head.headers[.contentType] == "text/plain")
            #expect(head.headers[.eTag] != nil)
            #expect(head.body == .null, "no body")
            let missing = try await server.a.raw(.head, "/files/a/\(String(repeating: "0", count: 32))_nope.txt", headers: [:], body: nil)
            #expect(missing.status == 404, "\(missing.headers)")

            let query = try await server.a.raw(.head, "/classes/Posts", headers: [Support.appIdHeader: "a", Support.restKeyHeader: "client-a"], body: nil)
            #expect(query.status == 200)
            #expect(query.headers[.contentType] == "application/json; charset=utf-8")
            #expect(query.headers[.contentLength] == String(#"{"results":[]}"#.utf8.count))
            #expect(query.body == .null)
        }
    }

    @Test(arguments: TestStore.allCases) func uploadsNeedAClientKeyAndReadsNeedOnlyTheURL(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let noKey = try await server.a.raw(
                .post, "/files/x.txt", headers: [Support.appIdHeader: "a", .contentType: "text/plain"], body: ByteBuffer(string: "x"))
            Support.expectError(noKey, status: 403, code: 119)
            let wrongKey = try await server.a.raw(
                .post, "/files/x.txt", headers: [Support.appIdHeader: "a", Support.restKeyHeader: "client-b"], body: ByteBuffer(string: "x"))
            Support.expectError(wrongKey, status: 403, code: 119)
            #expect(try await server.a.upload("x.txt", [1], master: true).status == 201)
            let (name, _) = try await server.upload("x.txt", [7])
            // No keys at all on the read: only the URL.
            #expect(try await server.a.download("/parse/files/a/\(name)").bytes == [7])
        }
    }

    @Test(arguments: TestStore.allCases) func aFileIsServedOnlyUnderItsOwnAppsURL(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let (name, _) = try await server.upload("secret.txt", [42])
            let other = try await server.b.download("/parse/files/b/\(name)")
            #expect(other.status == 404)
            #expect(try await server.a.download("/parse/files/nope/\(name)").status == 403)
            Support.expectError(try await server.b.delete("/files/\(name)", master: true), status: 404, code: 153)
            #expect(try await server.a.download("/parse/files/a/\(name)").bytes == [42])
        }
    }

    @Test(arguments: TestStore.allCases) func anUploadPastTheAppsLimitIs413AndLeavesNothing(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            try await server.setFiles("a", FileSettings(maximumUploadBytes: 1000))
            let big = try await server.a.upload("big.bin", [UInt8](repeating: 7, count: 1001))
            Support.expectError(big, status: 413, code: 130)
            #expect(try await server.a.upload("fits.bin", [UInt8](repeating: 7, count: 1000)).status == 201)
            #expect(try await server.b.upload("big.bin", [UInt8](repeating: 7, count: 1001)).status == 201, "app b keeps the default")
            let files = try server.files("a")
            #expect(try await files.all().map(\.size) == [1000])
            #expect(try await files.removeAbandonedUploads(olderThan: .distantFuture) == 0, "the refused upload's bytes are removed")
        }
    }

    @Test(arguments: TestStore.allCases) func theDefaultLimitIs20MiB(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let limit = FileSettings.defaultMaximumUploadBytes
            #expect(limit == 20 * 1024 * 1024)
            Support.expectError(try await server.a.upload("huge.bin", [UInt8](repeating: 1, count: limit + 1)), status: 413, code: 130)
            #expect(try await server.a.upload("max.bin", [UInt8](repeating: 1, count: limit)).status == 201)
        }
    }

    @Test(arguments: TestStore.allCases) func anAppCanAskForASessionToUpload(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            try await server.setFiles("a", FileSettings(requireSession: true))
            Support.expectError(try await server.a.upload("x.txt", [1]), status: 403, code: 119)
            let signup = try await server.a.post("/users", ["username": "ada", "password": "secret"])
            let token = try #require(signup["sessionToken"]?.stringValue)
            #expect(try await server.a.upload("x.txt", [1], sessionToken: token).status == 201)
            Support.expectError(try await server.a.upload("x.txt", [1], sessionToken: "r:nope"), status: 400, code: 209)
            #expect(try await server.a.upload("x.txt", [1], master: true).status == 201)
            #expect(try await server.b.upload("x.txt", [1]).status == 201, "app b asks for no session")
        }
    }

    @Test(arguments: TestStore.allCases) func otherMethodsAreRefused(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            Support.expectError(try await server.a.get("/files/x.txt"), status: 405, code: 119)
            Support.expectError(try await server.a.put("/files/x.txt", [:]), status: 405, code: 119)
            Support.expectError(try await server.a.post("/files/a/x.txt"), status: 405, code: 119)
            let batch = try await server.a.post(
                "/batch", ["requests": [["method": "DELETE", "path": "/parse/files/0123456789abcdef0123456789abcdef_x.txt"]]], master: true)
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 107, "files are not batch operations: \(batch.body)")
        }
    }
}

/// File hooks over the router: what the client is answered.
@Suite("File hooks over the router")
struct FileHookRouteTests {
    @Test(arguments: TestStore.allCases) func aBeforeSaveFileRefusalIs142AndARenameIsWhatTheClientGetsBack(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.beforeSaveFile { request in
            guard request.file.size <= 10 else { throw HookError.validation("pictures are at most 10 bytes here") }
            request.file.name = request.file.name.lowercased()
        }
        try await FileTestServer.with(hooks: hooks, store: store) { server in
            let refused = try await server.a.upload("big.png", [UInt8](repeating: 1, count: 11))
            Support.expectError(refused, status: 400, code: 142)
            let renamed = try await server.a.upload("ME.PNG", [1, 2])
            #expect(renamed.status == 201)
            let name = try #require(renamed["name"]?.stringValue)
            #expect(name.hasSuffix("_me.png"))
            #expect(try await server.a.download(try #require(renamed["url"]?.stringValue)).headers[.contentType] == "application/octet-stream")
        }
    }
}
