import Cloudlet
import Foundation
import PostgresTestServer
import Testing

extension ProcessTests {
    /// `cloudlet push send` and `cloudlet push status`, on an app's database: its file in a data
    /// folder, or the PostgreSQL database.
    @Suite struct PushCommandTests {
        @Test(arguments: ServedStore.allCases)
        func sendRecordsAJobThatStatusShows(store: ServedStore) async throws {
            let folder = try ServerProcess.temporaryFolder("push")
            defer { try? FileManager.default.removeItem(at: folder) }
            let naming = try await store.naming()
            let common = ["--data", folder.path, "--json"] + naming.arguments
            switch store {
            case .sqlite:
                let apps = folder.appendingPathComponent("apps")
                try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: apps.appendingPathComponent("demo.sqlite").path, contents: nil)
            case .postgres:
                let created = try await ServerProcess.run(.cloudlet, ["apps", "create", "demo"] + naming.arguments)
                #expect(created.ending == .exit(0), "\(created.stderr)")
            }

            let sent = try await ServerProcess.run(
                .cloudlet, ["push", "send", "demo", "--channels", "news,sport", "--payload", #"{"alert":"Hi"}"#, "--at", "2030-01-01T00:00:00.000Z"] + common)
            #expect(sent.ending == .exit(0), "\(sent.stderr)")
            let id = try #require(try JSONParser.parse(Array(sent.stdout.utf8))["objectId"]?.stringValue)

            let shown = try await ServerProcess.run(.cloudlet, ["push", "status", "demo", id] + common)
            #expect(shown.ending == .exit(0), "\(shown.stderr)")
            let job = try JSONParser.parse(Array(shown.stdout.utf8))
            #expect(job["status"] == "scheduled")
            #expect(job["pushTime"] == "2030-01-01T00:00:00.000Z")
            #expect(job["query"] == #"{"channels":{"$in":["news","sport"]}}"#)
            #expect(job["payload"] == #"{"alert":"Hi"}"#)

            let listed = try await ServerProcess.run(.cloudlet, ["push", "status", "demo"] + common)
            #expect(listed.stdout.split(separator: "\n").count == 1, "\(listed.stdout)")

            let neither = try await ServerProcess.run(.cloudlet, ["push", "send", "demo", "--payload", "{}"] + common)
            #expect(neither.ending != .exit(0))
            let unknown = try await ServerProcess.run(.cloudlet, ["push", "status", "nosuchapp"] + common)
            #expect(unknown.ending != .exit(0))
        }
    }
}
