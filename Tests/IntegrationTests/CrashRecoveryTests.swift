import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// After hooks are committed with the save, so a process killed mid-hook runs them on its next start.
    @Suite struct CrashRecoveryTests {
        @Test func afterHookCutOffByACrashRunsOnTheNextStart() async throws {
            let data = try ServerProcess.temporaryFolder("crash")
            defer { try? FileManager.default.removeItem(at: data) }

            let crashing = try await ServerProcess.serve(.fixture, data: data)
            defer { crashing.killIfRunning() }
            let keys = crashing.banner
            // The save answers only once its after hook is done, which never happens here.
            let hungSave = Task { try await crashing.client().post("/classes/Crash", ["note": "about to crash", "hang": true]) }
            defer { hungSave.cancel() }
            let firstEventId = try await poll("the after hook to start") {
                crashing.stderr.firstMatch(of: /after hook hanging: ([^\s"]+)/).map { String($0.1) }
            }
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

            // The new server takes the killed server's row back as it starts (rather than when its
            // 10 s lease runs out) and runs the hook again.
            let logs = try await poll(timeout: .seconds(30), "the replayed after hook's CrashLog") {
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

        @Test func anAfterHookWhoseWorkerDiedStaysOwedAndIsRetried() async throws {
            let data = try ServerProcess.temporaryFolder("flaky")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data, arguments: ["--workers", "1"])
            defer { server.killIfRunning() }
            let client = server.client()
            let saved = try await client.post("/classes/Flaky", ["note": "crashes its first worker"])
            #expect(saved.status == 201, "an after hook's failure never fails the save")
            let savedId = try #require(saved["objectId"]?.stringValue)
            let logs = try await poll("the retried after hook's FlakyLog") {
                let logs = try await client.query("FlakyLog", where: ["savedId": .string(savedId)])
                return logs.isEmpty ? nil : logs
            } orElse: {
                "the server said:\n" + server.stderr.split(separator: "\n").filter { !$0.contains("GET /parse/classes/FlakyLog") }.suffix(40).joined(separator: "\n")
            }
            #expect(logs.count == 1)
            #expect(try await server.stop() == .exit(0))
        }
    }
}
