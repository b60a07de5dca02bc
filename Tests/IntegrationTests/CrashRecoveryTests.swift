import Cloudlet
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// After hooks are committed with the save, so a process killed mid-hook runs them on its next start.
    @Suite struct CrashRecoveryTests {
        @Test func afterHookCutOffByACrashRunsOnTheNextStart() async throws {
            let data = try ServerProcess.temporaryFolder("crash")
            defer { try? FileManager.default.removeItem(at: data) }
            let marker = data.appendingPathComponent("hook-started")

            let crashing = try await ServerProcess.serve(
                .fixture, data: data, environment: ["CLOUDLET_FIXTURE_HANG_MARKER": marker.path])
            defer { crashing.killIfRunning() }
            let keys = crashing.banner
            // The save answers only once its after hook is done, which never happens here.
            let hungSave = Task { try await crashing.client().post("/classes/Crash", ["note": "about to crash"]) }
            defer { hungSave.cancel() }
            try await poll("the after hook to start") { FileManager.default.fileExists(atPath: marker.path) ? true : nil }
            let firstEventId = try String(contentsOf: marker, encoding: .utf8)
            #expect(try await crashing.kill() == .signal(SIGKILL))
            hungSave.cancel()
            if case .success(let reply) = await hungSave.result {
                Issue.record("the save answered \(reply.status) though its after hook never finished")
            }

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            #expect(restarted.banner.clientKey == keys.clientKey)
            let client = restarted.client(masterKey: keys.masterKey)
            let crashes = try await client.query("Crash")
            #expect(crashes.count == 1, "the save committed before the after hook must be kept")
            let crash = try #require(crashes.first)
            #expect(crash["note"] == "about to crash")
            let crashId = try #require(crash["objectId"]?.stringValue)

            let logs = try await poll("the replayed after hook's CrashLog") {
                let logs = try await client.query("CrashLog", where: ["savedId": .string(crashId)])
                return logs.isEmpty ? nil : logs
            }
            let eventId = try #require(logs.first?["eventId"]?.stringValue)
            #expect(!eventId.isEmpty)
            #expect(eventId == firstEventId, "the replayed hook must see the event id of the first run")

            // The replay happens once: a moment later there is still exactly one log, and no other.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await client.query("CrashLog", where: ["savedId": .string(crashId)]).count == 1)
            #expect(try await client.query("CrashLog").count == 1)

            // A normal save runs its hook straight away, with an event id of its own.
            let normal = try await client.post("/classes/Crash", ["note": "fine"])
            #expect(normal.status == 201)
            let normalId = try #require(normal["objectId"]?.stringValue)
            let normalLogs = try await client.query("CrashLog", where: ["savedId": .string(normalId)])
            #expect(normalLogs.count == 1)
            #expect(normalLogs.first?["eventId"]?.stringValue.map { !$0.isEmpty && $0 != eventId } == true)
            #expect(try await restarted.stop() == .exit(0))
        }
    }
}
