import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// After hooks are queued work: a server killed (or stopped) while after hooks of acknowledged
    /// saves are in progress runs each of them on its next start, and runs again none that had
    /// ended before.
    @Suite struct AfterHookCrashTests {
        /// How many saves of each kind the tests make.
        private static let saves = 6

        /// How many `className` objects record each saved id (their `savedId`).
        private static func records(_ client: ParseTestClient, _ className: String) async throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for record in try await client.query(className) {
                if let id = record["savedId"]?.stringValue { counts[id, default: 0] += 1 }
            }
            return counts
        }

        /// Saves `count` objects of `className` (with `fields`) and answers their ids, each save acknowledged.
        private static func save(
            _ count: Int, _ className: String, _ client: ParseTestClient, fields: [String: ParseValue] = [:]
        ) async throws -> [String] {
            var ids: [String] = []
            for n in 0..<count {
                let saved = try await client.post("/classes/\(className)", fields.merging(["n": .number(Double(n))]) { $1 })
                #expect(saved.status == 201, "\(saved.body)")
                ids.append(try #require(saved["objectId"]?.stringValue))
            }
            return ids
        }

        /// Whether `server` lost a worker under its calls (it then runs them again).
        private static func lostAWorker(_ server: ServerProcess) -> Bool {
            let log = server.stderr
            return log.contains("msg=\"worker killed\"") || log.contains("msg=\"worker crashed\"")
        }

        /// Waits until the app's database at `file` owes `count` after hooks (rows of its work queue).
        private static func waitUntilOwed(_ count: Int, in file: URL) async throws {
            let queue = SQLiteWorkQueue(try SQLiteAppDatabase(path: file.path))
            _ = try await poll("the ended after hooks' rows to go") {
                try await queue.queuedCount(.afterHook) == count ? true : nil
            }
        }

        /// Waits until the `Later` hooks of `ids` all hang in `server`.
        private static func waitUntilHanging(_ ids: [String], in server: ServerProcess) async throws {
            _ = try await poll("the after hooks to hang") {
                let log = server.stderr
                return ids.allSatisfy { log.contains("after-response hook hanging: \($0)") } ? true : nil
            }
        }

        @Test func afterHooksInProgressAtAKillRunOnTheNextStartAndThoseThatEndedDoNotRunAgain() async throws {
            let data = try ServerProcess.temporaryFolder("after-hook-kill")
            defer { try? FileManager.default.removeItem(at: data) }
            let killed = try await ServerProcess.serve(.fixture, data: data)
            defer { killed.killIfRunning() }
            let keys = killed.banner
            let client = killed.client(masterKey: keys.masterKey)
            // Ended before the kill: after-response hooks that recorded (their rows then completed),
            // and hooks the response waited for.
            let ended = try await Self.save(Self.saves, "Later", client, fields: ["waitMs": 300])
            _ = try await poll(timeout: .seconds(30), "the first after hooks to end") {
                try await Self.records(client, "LaterMark").keys.count == Self.saves ? true : nil
            }
            let waitedFor = try await Self.save(Self.saves, "Crash", client)
            // In progress at the kill: each of these `Later` hooks hangs, the first time, before it records.
            let cutOff = try await Self.save(Self.saves, "Later", client, fields: ["hang": true])
            try await Self.waitUntilHanging(cutOff, in: killed)
            // A hook that recorded has yet to have its row removed: wait for that, so that only the
            // cut-off hooks are owed at the kill (the others would run again, as at-least-once allows).
            try await Self.waitUntilOwed(cutOff.count, in: data.appendingPathComponent("apps/\(keys.appId).sqlite"))
            #expect(try await killed.kill() == .signal(SIGKILL))

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            let after = restarted.client(masterKey: keys.masterKey)
            // The new server, sole holder of the folder's queues, takes back the rows the killed one
            // held at once, rather than when their leases (10 s) run out.
            let marks = try await poll(timeout: .seconds(30), "the cut-off after hooks to run") {
                let marks = try await Self.records(after, "LaterMark")
                return cutOff.allSatisfy { marks[$0] != nil } ? marks : nil
            }
            // A hook runs twice only if interrupted: by the kill, or by the loss of its worker (which
            // the pool runs its calls again for), as a loaded machine's missed health check causes.
            let runs: ClosedRange<Int> = Self.lostAWorker(killed) || Self.lostAWorker(restarted) ? 1...2 : 1...1
            for id in cutOff { #expect(marks[id].map(runs.contains) == true, "cut off before it recorded, it records on the next start: \(id)") }
            for id in ended { #expect(marks[id].map(runs.contains) == true, "an after hook that ended is not run again: \(id)") }
            let logs = try await Self.records(after, "CrashLog")
            for id in waitedFor { #expect(logs[id].map(runs.contains) == true, "an after hook the response waited for ran once: \(id)") }
            #expect(marks.count == 2 * Self.saves && logs.count == Self.saves, "no other records: \(marks), \(logs)")
            #expect(restarted.stderr.contains("took back queued work an ended process held"), "\(restarted.stderr)")
            #expect(try await restarted.stop() == .exit(0))
        }

        @Test(.timing) func afterHooksInProgressAtAGracefulStopAreHandedBackAndRunAtTheNextStart() async throws {
            let data = try ServerProcess.temporaryFolder("after-hook-stop")
            defer { try? FileManager.default.removeItem(at: data) }
            let stopping = try await ServerProcess.serve(.fixture, data: data)
            defer { stopping.killIfRunning() }
            let keys = stopping.banner
            let cutOff = try await Self.save(Self.saves, "Later", stopping.client(masterKey: keys.masterKey), fields: ["hang": true])
            try await Self.waitUntilHanging(cutOff, in: stopping)
            #expect(try await stopping.stop() == .exit(0), "the stop cancels the hooks rather than waiting for them")

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            let after = restarted.client(masterKey: keys.masterKey)
            // Handed back, the rows are due at once: sooner than the 10 s a lease takes to run out.
            let marks = try await poll(timeout: .seconds(8), "the handed-back after hooks to run") {
                let marks = try await Self.records(after, "LaterMark")
                return cutOff.allSatisfy { marks[$0] != nil } ? marks : nil
            }
            let runs: ClosedRange<Int> = Self.lostAWorker(stopping) || Self.lostAWorker(restarted) ? 1...2 : 1...1
            for id in cutOff { #expect(marks[id].map(runs.contains) == true, "\(id)") }
            #expect(try await restarted.stop() == .exit(0))
        }
    }
}
