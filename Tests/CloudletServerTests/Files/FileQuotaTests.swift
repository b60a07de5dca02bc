import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// An app's files are bounded in total (`files.maxTotalBytes`) and by the host's free-disk floor:
/// past either, uploads answer 413/130 while saves keep working.
@Suite("File quota and free-disk floor")
struct FileQuotaTests {
    @Test(arguments: TestStore.allCases) func anUploadThatWouldPassTheAppsTotalIsRefusedAndADeleteFreesRoom(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let (first, _) = try await server.upload("one.bin", [UInt8](repeating: 1, count: 600))
            try await server.setFiles("a", FileSettings(maximumTotalBytes: 1000))
            let (second, _) = try await server.upload("two.bin", [UInt8](repeating: 2, count: 300))
            Support.expectError(try await server.a.upload("three.bin", [UInt8](repeating: 3, count: 200)), status: 413, code: 130)
            #expect(try await server.a.post("/classes/Notes", ["text": "saves keep working"]).status == 201)
            #expect(try await server.b.upload("other.bin", [UInt8](repeating: 4, count: 2000)).status == 201, "app b has no bound")

            #expect(try await server.a.delete("/files/\(first)", master: true).status == 200)
            _ = try await server.upload("three.bin", [UInt8](repeating: 3, count: 600))
            Support.expectError(try await server.a.upload("four.bin", [UInt8](repeating: 4, count: 101)), status: 413, code: 130)
            _ = try await server.upload("four.bin", [UInt8](repeating: 4, count: 100))
            Support.expectError(try await server.a.upload("five.bin", [5]), status: 413, code: 130)
            #expect(try await server.a.delete("/files/\(second)", master: true).status == 200)
            _ = try await server.upload("five.bin", [5])
            let files = try server.files("a")
            #expect(try await files.all().count == 3)
            #expect(try await files.removeAbandonedUploads(olderThan: .distantFuture) == 0, "nothing of a refused upload is kept")
        }
    }

    @Test func aHostBelowItsFreeDiskFloorRefusesUploadsKeepsSavingAndIsNotReady() async throws {
        try await FileTestServer.with(adjust: { $0.minimumFreeDiskBytes = 1 << 60 }) { server in
            Support.expectError(try await server.a.upload("one.bin", [1, 2, 3]), status: 413, code: 130)
            #expect(try await server.a.post("/classes/Notes", ["text": "saves keep working"]).status == 201)
            let ready = try await server.root.raw(.get, "/ready", headers: [:], body: nil)
            #expect(ready.status == 503)
            #expect(ready["lowDisk"]?["floorBytes"]?.doubleValue == Double(1 << 60))
        }
        try await FileTestServer.with { server in
            let ready = try await server.root.raw(.get, "/ready", headers: [:], body: nil)
            #expect(ready.status == 200, "the default floor (1 GiB) is below this disk's free space: \(ready.body)")
        }
    }

    @Test(arguments: TestStore.allCases) func metadataAndContentTypesPastTheirBoundsAreRefusedAtUpload(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.beforeSaveFile { request in
            if request.file.name.hasPrefix("big") { request.file.metadata["blob"] = .string(String(repeating: "x", count: 9000)) }
        }
        try await FileTestServer.with(hooks: hooks, store: store) { server in
            let form: ParseValue = [
                "base64": "AAAA", "_ApplicationId": "a", "_JavaScriptKey": "client-a",
                "fileData": ["metadata": ["note": .string(String(repeating: "m", count: 17_000))]],
            ]
            let fromClient = try await server.a.raw(
                .post, "/files/meta.txt", headers: [.contentType: "text/plain"], body: ByteBuffer(bytes: JSONWriter.bytes(form)))
            Support.expectError(fromClient, status: 400, code: 130)
            Support.expectError(try await server.a.upload("big.txt", [1]), status: 400, code: 130)
            let longType = "text/" + String(repeating: "p", count: 300)
            Support.expectError(try await server.a.upload("type.txt", [1], contentType: longType), status: 400, code: 130)
            let files = try server.files("a")
            #expect(try await files.all().isEmpty)
            #expect(try await files.removeAbandonedUploads(olderThan: .distantFuture) == 0, "nothing of a refused upload is kept")
            let (name, url) = try await server.upload("fine.txt", [1])
            #expect(try await server.a.download(url).status == 200)
            #expect(name.hasSuffix("fine.txt"))
        }
    }

    @Test func uploadsACrashLeftBehindAreRemovedAtStart() async throws {
        try await FileTestServer.with(prepare: { folder in
            let uploads = folder.appendingPathComponent("apps/a/files/.uploads")
            try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
            try Data(repeating: 7, count: 4096).write(to: uploads.appendingPathComponent("5F1C0E8A-0000-4000-8000-000000000000"))
            try Data("{}".utf8).write(to: uploads.appendingPathComponent("5F1C0E8A-0000-4000-8000-000000000000.meta"))
        }) { server in
            let uploads = server.folder.appendingPathComponent("apps/a/files/.uploads")
            let left = try FileManager.default.contentsOfDirectory(atPath: uploads.path)
            #expect(left.isEmpty)
        }
    }
}
