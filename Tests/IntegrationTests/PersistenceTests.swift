import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// What `cloudlet serve` stores outlives the process.
    @Suite struct PersistenceTests {
        @Test func objectsAndHookEffectsSurviveARestart() async throws {
            let data = try ServerProcess.temporaryFolder("persist")
            defer { try? FileManager.default.removeItem(at: data) }

            let server = try await ServerProcess.serve(.cloudlet, data: data)
            defer { server.killIfRunning() }
            let client = server.client()
            let first = try await client.post(
                "/classes/Posts",
                ["title": "  First post  ", "author": "ada", "tags": ["Swift", " swift ", "SERVER"], "body": "one two three"])
            #expect(first.status == 201)
            let firstId = try #require(first["objectId"]?.stringValue)
            let second = try await client.post("/classes/Posts", ["title": "Second", "author": "ada"])
            #expect(second.status == 201)
            let blank = try await client.post("/classes/Posts", ["title": "   ", "author": "ada"])
            #expect(blank.status == 400)
            #expect(blank["code"] == 142)
            #expect(try await client.query("AuthorStats", where: ["author": "ada"]).first?["posts"] == 2)

            let app = data.appendingPathComponent("apps/dev.sqlite")
            #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("host.sqlite").path))
            #expect(FileManager.default.fileExists(atPath: app.path))
            #expect(FileManager.default.fileExists(atPath: app.path + "-wal"), "the app database is not in WAL mode")
            #expect(try await server.stop() == .exit(0))
            // Bytes 18 and 19 of an SQLite file (write and read format versions) are 2 in WAL mode.
            let header = try Data(contentsOf: app).prefix(20)
            #expect(header.count == 20 && header[18] == 2 && header[19] == 2, "the app database is not in WAL mode")

            let again = try await ServerProcess.serve(.cloudlet, data: data)
            defer { again.killIfRunning() }
            let restarted = again.client(masterKey: server.banner.masterKey)
            let stored = try await restarted.get("/classes/Posts/\(firstId)")
            #expect(stored.status == 200)
            #expect(stored["title"] == "First post")
            #expect(stored["tags"] == ["swift", "server"])
            #expect(stored["wordCount"] == 3)
            #expect(stored["author"] == "ada")
            #expect(try await restarted.query("Posts").count == 2)
            let stats = try await restarted.query("AuthorStats", where: ["author": "ada"])
            #expect(stats.count == 1)
            #expect(stats.first?["posts"] == 2)

            // The counter goes on from where it was.
            #expect(try await restarted.post("/classes/Posts", ["title": "Third", "author": "ada"]).status == 201)
            #expect(try await restarted.query("AuthorStats", where: ["author": "ada"]).first?["posts"] == 3)
            #expect(try await again.stop() == .exit(0))
        }
    }
}
