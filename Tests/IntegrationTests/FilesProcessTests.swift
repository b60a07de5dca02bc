import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import PostgresTestServer
import Testing

extension ProcessTests {
    /// Files through a real `cloudlet serve` over sockets, and `cloudlet files prune` on its data
    /// folder or its PostgreSQL database.
    @Suite struct FilesProcessTests {
        @Test(arguments: ServedStore.allCases)
        func filesAreServedAndPruneRemovesOnlyTheUnreferencedOnes(store: ServedStore) async throws {
            let data = try ServerProcess.temporaryFolder("files")
            defer { try? FileManager.default.removeItem(at: data) }
            let naming = try await store.naming()
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"], environment: naming.environment)
            defer { server.killIfRunning() }
            let client = server.client()
            let photo = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let kept = try await client.upload("kept.png", photo, contentType: "image/png")
            #expect(kept.status == 201)
            let keptURL = try #require(kept["url"]?.stringValue)
            #expect(keptURL.hasPrefix("http://127.0.0.1:\(server.port)/parse/files/dev/"))
            let download = try await client.download(keptURL)
            #expect(download.bytes == photo)
            #expect(download.headers[.contentType] == "image/png")
            let dropped = try await client.upload("dropped.txt", Array("draft".utf8), contentType: "text/plain")
            let droppedName = try #require(dropped["name"]?.stringValue)
            let picture: ParseValue = ["__type": "File", "name": kept["name"] ?? .null]
            #expect(try await client.post("/classes/Profiles", ["gallery": [["picture": picture]]]).status == 201)

            let common = ["files", "prune", "dev", "--data", data.path] + naming.arguments
            let young = try await ServerProcess.run(.cloudlet, common)
            #expect(young.ending == .exit(0), "\(young.stderr)")
            #expect(young.stdout == "removed 0 unreferenced files (0 bytes)\n", "files younger than 24h stay")

            let dryRun = try await ServerProcess.run(.cloudlet, common + ["--older-than", "0s", "--dry-run"])
            #expect(dryRun.stdout == "would remove \(droppedName) (5 bytes)\nwould remove 1 unreferenced file (5 bytes)\n", "\(dryRun.stderr)")
            #expect(try await client.download(try #require(dropped["url"]?.stringValue)).status == 200)

            let pruned = try await ServerProcess.run(.cloudlet, common + ["--older-than", "0s"])
            #expect(pruned.stdout == "removed \(droppedName) (5 bytes)\nremoved 1 unreferenced file (5 bytes)\n", "\(pruned.stderr)")
            #expect(try await client.download(try #require(dropped["url"]?.stringValue)).status == 404)
            #expect(try await client.download(keptURL).bytes == photo, "a file an object references stays")

            let unknown = try await ServerProcess.run(.cloudlet, ["files", "prune", "nosuchapp", "--data", data.path] + naming.arguments)
            #expect(unknown.ending != .exit(0))
            try await server.stop()
        }
    }
}
