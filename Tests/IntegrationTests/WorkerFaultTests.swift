import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// A hook that crashes, spins, answers too much, prints too much or writes too late hurts only
    /// its own call. The fixture app runs one worker, so the calls here share it.
    @Suite(.timing) struct WorkerFaultTests {
        typealias TwoApps = IsolationTests.TwoApps

        @Test func aCrashFailsOnlyTheCrashingCallAndTheOthersOnItsWorkerAreRetried() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let innocent = Task { try await apps.fixture.post("/functions/slow", ["ms": 1500]) }
            try await Task.sleep(for: .milliseconds(300))
            let crashed = try await apps.fixture.post("/functions/crash", [:])
            #expect(crashed.status == 500)
            #expect(crashed.body == ["code": 141, "error": "hook crashed"])
            let answered = try await innocent.value
            #expect(answered.status == 200, "the call beside the crash is run again: \(JSONWriter.string(answered.body))")
            #expect(answered["result"] == "done")
            for _ in 0..<2 { _ = try await apps.fixture.post("/functions/slow", ["ms": 1]) }
            #expect(try await apps.fixture.post("/functions/slow", ["ms": 1]).status == 200, "the innocent hook's circuit is closed")
        }

        @Test func aSpinningHookHoldsUpNoOtherCallOnItsWorker() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let spin = Task {
                let reply = try await apps.fixture.post("/functions/spin", [:])
                return (reply, ContinuousClock.now)
            }
            try await Task.sleep(for: .milliseconds(200))
            let quick = try await apps.fixture.post("/functions/slow", ["ms": 10])
            let quickAnsweredAt = ContinuousClock.now
            #expect(quick.status == 200 && quick["result"] == "done")
            let overlapping = Task { try await apps.fixture.post("/functions/slow", ["ms": 1500]) }
            let (spun, spinAnsweredAt) = try await spin.value
            #expect(spun.status == 504)
            #expect(quickAnsweredAt < spinAnsweredAt, "the quick call is answered while the spin still runs, not after its worker is killed")
            let survivor = try await overlapping.value
            #expect(survivor.status == 200, "a call on the worker killed for the spin is run again: \(JSONWriter.string(survivor.body))")
        }

        @Test func aCallBehindAQuickHookThatSpinsOnItsWorkersLoopRunsAgainWithinItsOwnDeadline() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            // Quick runs put the hook on its worker's event loop: its spin there holds up every
            // other frame to the worker, until the host kills the worker at the spin's 1 s limit.
            for _ in 0..<3 { #expect(try await apps.fixture.post("/functions/spinIfAsked", [:])["result"] == "quick") }
            let spin = Task {
                let reply = try await apps.fixture.post("/functions/spinIfAsked", ["spin": true])
                return (reply, ContinuousClock.now)
            }
            try await Task.sleep(for: .milliseconds(400))
            let behind = try await apps.fixture.post("/functions/slow", ["ms": 10])
            let answeredAt = ContinuousClock.now
            let (spun, spinEndedAt) = try await spin.value
            #expect(spun.status == 504)
            #expect(behind.status == 200 && behind["result"] == "done", "the call behind the spin is not failed by it: \(JSONWriter.string(behind.body))")
            #expect(spinEndedAt <= answeredAt, "the call waited behind the spin, and ran again once its worker was replaced")
        }

        @Test func aHookResultOverTheFrameBoundIsThatCallsErrorAndTheWorkerCarriesOn() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let worker = try await apps.fixtureWorker()
            let before = try HostUsage(pid: apps.server.pid)
            let reply = try await apps.fixture.post("/functions/big", ["bytes": .number(Double(17 << 20))])
            #expect(reply.status == 400)
            #expect(reply.body == ["code": 141, "error": "hook result too large"])
            let after = try HostUsage(pid: apps.server.pid)
            #expect(after.residentKiB <= before.residentKiB + 16 * 1024, "RSS \(before.residentKiB) → \(after.residentKiB) KiB")
            #expect(try await apps.fixtureWorker() == worker, "the same worker answers the next call")
        }

        @Test func aWorkersOutputLineIsCutAtTheBound() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let reply = try await apps.fixture.post("/functions/shout", ["bytes": .number(Double(1 << 20))])
            #expect(reply["result"] == "shouted")
            let line = try await poll("the worker's cut line in the host log") {
                apps.server.stderr.split(separator: "\n").first { $0.contains("shout: yyyy") }
            }
            #expect(line.utf8.count < 9 * 1024, "a line of \(line.utf8.count) bytes")
            #expect(line.contains("yyyy [… line cut at 8192 bytes]\""), "the line ends with the cut marker inside its message")
            _ = try await apps.fixtureWorker()
        }

        @Test func aHookThatPrintsWithoutEndReachesTheLogOnlyAtItsAppsRateAndTheRestIsCounted() async throws {
            let apps = try await TwoApps.start(["--operator-key", ObservabilityTests.operatorKey])
            defer { apps.stop() }
            let started = ContinuousClock.now
            let reply = try await apps.fixture.post("/functions/chatter", ["lines": 20_000])
            #expect(reply["result"] == "chattered")
            // Every line is either relayed or counted dropped (the warning that sums them up comes
            // every 10 s: `WorkerOutputRelayTests` reads it).
            let (relayed, dropped) = try await poll(timeout: .seconds(15), "every line relayed or counted") { () -> (Int, Int)? in
                let metrics = try await ObservabilityTests.operatorGet(apps.server, "/metrics").text
                let dropped = metrics.firstMatch(of: /cloudlet_worker_output_dropped_total\{app="fixture"\} (\d+)/).flatMap { Int($0.1) } ?? 0
                let relayed = apps.server.stderr.split(separator: "\n").filter { $0.contains("chatter line ") }.count
                return relayed + dropped == 20_000 ? (relayed, dropped) : nil
            }
            // The app's bucket holds a second's worth (200 lines) and refills at 200 a second.
            let seconds = Int(((ContinuousClock.now - started) / .seconds(1)).rounded(.up))
            #expect(relayed >= 1 && relayed <= 200 * (1 + seconds), "\(relayed) of 20000 lines relayed in \(seconds) s, \(dropped) dropped")
            try await apps.expectOtherAppAnswers()
        }

        @Test(arguments: [[String](), ["--isolation", "in-process"]])
        func aHookThatSavesPastItsDeadlineWritesNothing(arguments: [String]) async throws {
            let data = try ServerProcess.temporaryFolder("late")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data, arguments: arguments)
            defer { server.killIfRunning() }
            // A call first, so that the late one runs its hook rather than timing out waiting for a worker.
            #expect(try await server.client().post("/functions/slow", ["ms": 1])["result"] == "done")
            // The save comes 50 ms past the hook's limit, well before its worker would be killed for it.
            let reply = try await server.client().post("/functions/saveLate", ["ms": 350])
            #expect(reply.status == 504)
            #expect(reply["code"] == 124)
            // The hook says when its save has answered: had it saved, the object would be there by then.
            // A worker slowed past the kill grace (its call demoted to the idle CPU group on a busy
            // machine) is killed before it saves: it writes nothing either.
            _ = try await poll("the late save answered or its worker killed") { () -> Bool? in
                server.stderr.split(separator: "\n").contains {
                    $0.contains("saveLate: the save answered") || ($0.contains("msg=\"worker killed\"") && $0.contains("hook=\"function saveLate\""))
                } ? true : nil
            }
            #expect(try await server.client().query("LateWrite").isEmpty, "nothing is written after the caller got its 504")
            #expect(try await server.stop() == .exit(0))
        }
    }
}
