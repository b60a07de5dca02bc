import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Synchronization
import Testing

extension ProcessTests {
    /// Saves share transactions under load (group commit) and are answered only once theirs has
    /// committed: a server killed (SIGKILL) under concurrent saves keeps every save it acknowledged,
    /// and runs every after hook it owed them.
    @Suite struct GroupCommitCrashTests {
        /// How many clients save at once.
        private static let connections = 16
        /// How many acknowledged saves the kill waits for.
        private static let acknowledgedBeforeTheKill = 150

        /// The ids of the saves answered 201, as the clients get them.
        private final class Acknowledged: Sendable {
            let ids = Mutex<[String]>([])
        }

        /// The `savedId`s the `LaterMark` objects record (at most 1,000 of them), with how many record each.
        private static func marks(_ client: ParseTestClient) async throws -> [String: Int] {
            let reply = try await client.get("/classes/LaterMark", query: ["limit": 1_000], master: true)
            var counts: [String: Int] = [:]
            for object in reply["results"]?.arrayValue ?? [] {
                if let id = object["savedId"]?.stringValue { counts[id, default: 0] += 1 }
            }
            return counts
        }

        @Test func concurrentSavesThatFailAnswerTheirOwnErrorAndTheOthersAreStoredAndReadBack() async throws {
            let data = try ServerProcess.temporaryFolder("group-commit")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data)
            defer { server.killIfRunning() }
            let client = server.client()
            #expect(try await client.post("/classes/Tally", ["n": 0]).status == 201, "Tally's n holds numbers")
            // Three sign-ups for each username, and saves of which every fourth has a String for n, all at once.
            let outcomes = try await withThrowingTaskGroup(of: (String, Int, String?, Int?).self) { group in
                for index in 0..<48 {
                    group.addTask {
                        let reply = try await client.post("/users", ["username": .string("user-\(index % 16)"), "password": "secret"])
                        return ("user-\(index % 16)", reply.status, reply["objectId"]?.stringValue, reply["code"]?.intValue)
                    }
                    group.addTask {
                        let n: ParseValue = index % 4 == 3 ? "not a number" : .number(Double(index))
                        let reply = try await client.post("/classes/Tally", ["n": n])
                        return (index % 4 == 3 ? "wrong type" : "tally", reply.status, reply["objectId"]?.stringValue, reply["code"]?.intValue)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for username in (0..<16).map({ "user-\($0)" }) {
                let answers = outcomes.filter { $0.0 == username }.map { "\($0.1) \($0.3 ?? 0)" }.sorted()
                #expect(answers == ["201 0", "400 202", "400 202"], "one sign-up of \(username) wins, the others answer 202")
            }
            #expect(outcomes.filter { $0.0 == "wrong type" }.allSatisfy { $0.1 == 400 && $0.3 == 111 })
            #expect(outcomes.filter { $0.0 == "tally" }.allSatisfy { $0.1 == 201 })
            // Every object answered 201 reads back at once.
            for (kind, status, id, _) in outcomes where status == 201 {
                let path = kind == "tally" ? "/classes/Tally/" : "/users/"
                #expect(try await client.get(path + (id ?? ""), master: true).status == 200, "\(kind) \(id ?? "")")
            }
            #expect(try await server.stop() == .exit(0))
        }

        @Test func everyAcknowledgedSaveAndItsAfterHookSurviveAKillUnderConcurrentLoad() async throws {
            let data = try ServerProcess.temporaryFolder("group-commit-kill")
            defer { try? FileManager.default.removeItem(at: data) }
            let killed = try await ServerProcess.serve(.fixture, data: data)
            defer { killed.killIfRunning() }
            let keys = killed.banner
            let client = killed.client(masterKey: keys.masterKey)
            // Rows of a few pages each, so that a group runs long enough for its first saves' answers
            // to reach their clients before it commits, were they sent before the commit.
            let filler: ParseValue = ["text": .string(String(repeating: "x", count: 12_000))]
            let acknowledged = Acknowledged()
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for connection in 0..<Self.connections {
                        group.addTask {
                            var n = 0
                            while !Task.isCancelled {
                                let fields: [String: ParseValue] = [
                                    "client": .number(Double(connection)), "n": .number(Double(n)), "filler": filler, "waitMs": 300,
                                ]
                                guard let saved = try? await client.post("/classes/Later", fields) else { return }
                                n += 1
                                if saved.status == 201, let id = saved["objectId"]?.stringValue { acknowledged.ids.withLock { $0.append(id) } }
                            }
                        }
                    }
                }
            }
            defer { load.cancel() }
            try await poll(timeout: .seconds(60), "saves to be acknowledged") {
                acknowledged.ids.withLock { $0.count } >= Self.acknowledgedBeforeTheKill ? true : nil
            }
            #expect(try await killed.kill() == .signal(SIGKILL))
            load.cancel()
            await load.value
            let saved = acknowledged.ids.withLock { $0 }

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            let after = restarted.client(masterKey: keys.masterKey)
            var kept: [String] = []
            for id in saved where try await after.get("/classes/Later/\(id)", master: true).status == 200 { kept.append(id) }
            #expect(kept.count == saved.count, "\(saved.count - kept.count) of \(saved.count) acknowledged saves were lost")
            // Each `Later` hook waits 300 ms before it records: those in progress or queued behind
            // them were owed at the kill, and the new server runs them, 32 at a time.
            var unmarked = kept
            let giveUp = ContinuousClock.now + .seconds(120)
            while !unmarked.isEmpty, ContinuousClock.now < giveUp {
                try await Task.sleep(for: .milliseconds(200))
                let marks = try await Self.marks(after)
                unmarked.removeAll { marks[$0] != nil }
            }
            #expect(unmarked.isEmpty, "\(unmarked.count) of \(kept.count) acknowledged saves never had their after hook run")
            #expect(try await restarted.stop() == .exit(0))
        }
    }
}
