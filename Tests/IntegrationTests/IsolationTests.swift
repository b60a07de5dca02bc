import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
import CloudletServerTesting
#endif

extension ProcessTests {
    /// Hooks in worker processes: a hang, a trap or a memory hog costs only its own call and worker.
    /// The server hosts the fixture app (one worker, whose hooks misbehave on demand) and app "other"
    /// (the `cloudlet` binary's hooks), which must keep answering throughout.
    @Suite struct IsolationTests {
        /// A running server with both apps and clients for each.
        struct TwoApps {
            let server: ServerProcess
            let fixture: ParseTestClient
            let other: ParseTestClient
            let data: URL

            static func start(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> TwoApps {
                let data = try ServerProcess.temporaryFolder("isolation")
                let server = try await ServerProcess.serve(
                    .fixture, data: data,
                    arguments: ["--app-id", "fixture", "--workers", "1", "--app", "other=\(ServerProcess.Binary.cloudlet.url.path)"]
                        + arguments, environment: environment)
                let line = try #require(server.stdout.firstMatch(of: /also serving app "other": client key (\S+), master key (\S+)/))
                let other = server.client(appId: "other", clientKey: String(line.1), masterKey: String(line.2))
                return TwoApps(server: server, fixture: server.client(), other: other, data: data)
            }

            func stop() {
                server.killIfRunning()
                try? FileManager.default.removeItem(at: data)
            }

            /// The pid of the fixture's worker, as its `pid` function reports it.
            func fixtureWorker() async throws -> Int {
                let reply = try await fixture.post("/functions/pid", [:])
                return try #require(reply["result"]?.intValue, "pid answered \(reply.status): \(JSONWriter.string(reply.body))")
            }

            /// Calls the other app's `hello` and expects its answer.
            func expectOtherAppAnswers() async throws {
                let reply = try await other.post("/functions/hello", ["name": "Ada"])
                #expect(reply.status == 200)
                #expect(reply["result"] == "Hello, Ada!")
            }
        }

        /// A hook that spins past 25 ms moves its worker into the app's idle CPU group, capped at
        /// `--long-hook-cpu` cores (or to nice 19 where there are no cgroups), so the host's
        /// threads take the CPU when they need it.
        @Test(.timing) func aSpinningHooksWorkerYieldsTheCPUToTheHost() async throws {
            let apps = try await TwoApps.start(["--long-hook-cpu", "0.25"])
            defer { apps.stop() }
            let worker = try await apps.fixtureWorker()
            let hang = Task { try? await apps.fixture.post("/functions/spin", [:]) }
            defer { hang.cancel() }
            let longGroup = "/sys/fs/cgroup/cpu/cloudlet-idle/\(apps.server.pid)/fixture"
            if FileManager.default.fileExists(atPath: longGroup + "/cgroup.procs") {
                let members = try await poll("the spinning worker in the idle group") {
                    let text = try String(contentsOfFile: longGroup + "/cgroup.procs", encoding: .utf8)
                    return text.split(separator: "\n").contains(Substring(String(worker))) ? text : nil
                }
                #expect(!members.isEmpty)
                if FileManager.default.fileExists(atPath: longGroup + "/cpu.cfs_quota_us") {
                    #expect(apps.server.stderr.contains("workers with long calls run in an idle cgroup, capped at 0.25 cores"), "\(apps.server.stderr)")
                    let quota = try String(contentsOfFile: longGroup + "/cpu.cfs_quota_us", encoding: .utf8)
                    #expect(quota.trimmingCharacters(in: .whitespacesAndNewlines) == "25000")
                    // Uncapped, the spinning worker would take a whole core of this otherwise idle machine.
                    let cores = try await HostUsage.cores(usedBy: worker, over: .milliseconds(500))
                    #expect(cores < 0.5, "the spinning worker took \(cores) cores")
                }
            } else {
                #expect(apps.server.stderr.contains("workers with long calls run at nice 19, with no CPU cap"), "\(apps.server.stderr)")
                _ = try await poll("the spinning worker at nice 19") {
                    try HostUsage.statFields(of: worker)[16] == "19" ? true : nil
                }
            }
            try await apps.expectOtherAppAnswers()
        }

        @Test(.timing) func aHangingHookTimesOutItsWorkerIsReplacedAndTheOtherAppKeepsAnswering() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let before = try await apps.fixtureWorker()

            let hang = Task { try await apps.fixture.post("/functions/spin", [:]) }
            for _ in 0..<5 {
                let started = ContinuousClock.now
                try await apps.expectOtherAppAnswers()
                #expect(ContinuousClock.now - started < .seconds(1), "the other app must answer at normal latency")
                try await Task.sleep(for: .milliseconds(100))
            }
            let timedOut = try await hang.value
            #expect(timedOut.status == 504)
            #expect(timedOut["code"] == 124)

            let after = try await poll("a new fixture worker") {
                let pid = try await apps.fixtureWorker()
                return pid != before ? pid : nil
            }
            #expect(after != before)
            #expect(kill(pid_t(before), 0) != 0, "the hung worker must be gone")
        }

        @Test(.timing) func aSpinningWorkerEndsWhenItsHostIsKilled() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let worker = try await apps.fixtureWorker()
            try await Self.expect(worker, of: apps, toEndWithin: .seconds(5), whenItsHostIsKilledDuring: "spin", [:])
        }

        @Test(.timing) func aWorkerWhoseLoopASpinHoldsEndsAtOnceWhenItsHostIsKilled() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            // Quick runs put the hook on its worker's event loop, so the spin holds up the loop that
            // would see the connection close: only the worker's watch on its host can end it.
            for _ in 0..<3 { #expect(try await apps.fixture.post("/functions/spinIfAsked", [:])["result"] == "quick") }
            let worker = try await apps.fixtureWorker()
            // Well before the watch's parent check (every 5 s): the host's end closing wakes it.
            try await Self.expect(worker, of: apps, toEndWithin: .seconds(3), whenItsHostIsKilledDuring: "spinIfAsked", ["spin": true])
        }

        /// Kills the host of `apps` 200 ms into a call of its fixture's `function`, and expects
        /// `worker`, orphaned, to end within `limit`: gone, or a zombie waiting for a reaper that is not ours.
        private static func expect(
            _ worker: Int, of apps: TwoApps, toEndWithin limit: Duration, whenItsHostIsKilledDuring function: String,
            _ params: [String: ParseValue]
        ) async throws {
            let call = Task { try? await apps.fixture.post("/functions/\(function)", params) }
            defer { call.cancel() }
            try await Task.sleep(for: .milliseconds(200))
            _ = try await apps.server.kill()
            _ = try await poll(timeout: limit, "the orphaned worker to exit") {
                let status = try? String(contentsOfFile: "/proc/\(worker)/status", encoding: .utf8)
                return status == nil || status!.contains("State:\tZ") ? true : nil
            }
        }

        @Test(.timing) func aHundredHangsLeaveTheHostsThreadsAndMemoryFlat() async throws {
            let apps = try await TwoApps.start(["--workers", "4"])
            defer { apps.stop() }
            func hangs(_ count: Int) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            for _ in 0..<count / 4 {
                                let reply = try await apps.fixture.post("/functions/spinBriefly", [:])
                                #expect(reply.status == 504)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await hangs(8)
            let before = try HostUsage(pid: apps.server.pid)
            try await hangs(100)
            let after = try HostUsage(pid: apps.server.pid)
            #expect(after.threads <= before.threads + 20, "threads \(before.threads) → \(after.threads)")
            #expect(after.residentKiB <= before.residentKiB + 32 * 1024, "RSS \(before.residentKiB) → \(after.residentKiB) KiB")
            try await apps.expectOtherAppAnswers()
            _ = try await apps.fixtureWorker()
        }

        @Test(.timing) func aCrashFailsOnlyItsCallThenTheCircuitOpensAfterRepeats() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let before = try await apps.fixtureWorker()

            let crashed = try await apps.fixture.post("/functions/crash", [:])
            #expect(crashed.status == 500)
            #expect(crashed.body == ["code": 141, "error": "hook crashed"])
            try await apps.expectOtherAppAnswers()
            #expect(try await apps.fixtureWorker() != before, "the crashed worker is replaced")

            for _ in 0..<2 {
                #expect(try await apps.fixture.post("/functions/crash", [:]).status == 500)
            }
            let refused = try await apps.fixture.post("/functions/crash", [:])
            #expect(refused.status == 503, "three crashes in a row open the hook's circuit")
            #expect(refused["code"] == 141)
            _ = try await apps.fixtureWorker()
            try await apps.expectOtherAppAnswers()
            #expect(apps.server.stderr.contains("Unexpectedly found nil"), "the trap's message goes to the host's log")
        }

        @Test func aHookThatAllocatesWithoutBoundIsStoppedAndTheHostSurvives() async throws {
            let apps = try await TwoApps.start(["--worker-memory-mb", "128"])
            defer { apps.stop() }

            let reply = try await apps.fixture.post("/functions/hog", [:])
            #expect(reply.status == 500)
            #expect(reply["code"] == 141)
            #expect(reply["error"] == "hook crashed: it ran out of memory (limit 128 MiB)")
            #expect(apps.server.isRunning)
            _ = try await apps.fixtureWorker()
            try await apps.expectOtherAppAnswers()
        }

        @Test func aWorkersLogLinesAndStandardErrorReachTheHostLogTagged() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let reply = try await apps.fixture.post("/functions/log", ["text": "marmalade"])
            #expect(reply["result"] == "logged")
            let hostLog = try await poll("the worker's stderr line and the request line in the host log") {
                let log = apps.server.stderr
                return log.contains("stderr: marmalade") && log.contains("/functions/log 200") ? log : nil
            }
            let requestLine = try #require(hostLog.split(separator: "\n").first { $0.contains("/functions/log 200") })
            let requestId = try #require(requestLine.firstMatch(of: /\ request_id=(\S+)/)?.1)
            let loggerLine = try #require(hostLog.split(separator: "\n").first { $0.contains(" msg=marmalade ") && $0.contains("level=notice") })
            #expect(loggerLine.contains(" app=fixture"))
            #expect(loggerLine.contains(#" hook="function log""#))
            #expect(loggerLine.contains(" request_id=\(requestId)"))
            #expect(loggerLine.contains(" source=fixture"))
            let stderrLine = try #require(hostLog.split(separator: "\n").first { $0.contains(#"msg="stderr: marmalade""#) })
            #expect(stderrLine.contains(" app=fixture") && stderrLine.contains(" stream=stderr"))
        }

        @Test func sighupReplacesTheWorkersWithoutFailingARequestUnderLoad() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let before = try await apps.fixtureWorker()
            let reloaded = ReloadFlag()

            let results = try await withThrowingTaskGroup(of: [(status: Int, pid: Int?)].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var results: [(status: Int, pid: Int?)] = []
                        let giveUp = ContinuousClock.now + .seconds(20)
                        var quietAfterReload = 0
                        while quietAfterReload < 20, ContinuousClock.now < giveUp {
                            let reply = try await apps.fixture.post("/functions/pid", [:])
                            results.append((reply.status, reply["result"]?.intValue))
                            if reloaded.isSet { quietAfterReload += 1 }
                        }
                        return results
                    }
                }
                try await Task.sleep(for: .milliseconds(300))
                apps.server.send(SIGHUP)
                reloaded.set()
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(results.allSatisfy { $0.status == 200 }, "statuses: \(Set(results.map(\.status)))")
            let pids = Set(results.compactMap(\.pid))
            #expect(pids.contains(before))
            #expect(pids.count >= 2, "the reload must have put a new worker in place")
            #expect(try await apps.fixtureWorker() != before)
            #expect(apps.server.isRunning)
        }

        @Test func hooksRunInWorkersByDefaultAndInTheServerWithIsolationInProcess() async throws {
            let data = try ServerProcess.temporaryFolder("isolation-mode")
            defer { try? FileManager.default.removeItem(at: data) }
            for (arguments, inServer) in [([String](), false), (["--isolation", "in-process"], true)] {
                let server = try await ServerProcess.serve(.fixture, data: data, arguments: arguments)
                defer { server.killIfRunning() }
                let pid = try #require(try await server.client().post("/functions/pid", [:])["result"]?.intValue)
                #expect((pid == Int(server.pid)) == inServer, "\(arguments)")
                #expect(try await server.stop() == .exit(0))
            }
        }

        @Test func theHarnessReproducesACrashInWorkerMode() async throws {
            try await HookHarness.withWorkers(executablePath: ServerProcess.Binary.fixture.url.path) { (harness: HookHarness) async throws in
                #expect(try await harness.call("slow", ["ms": 1]) == "done")
                let error = await #expect(throws: ParseError.self) { try await harness.call("crash") }
                #expect(error?.code == 141 && error?.message == "hook crashed")
                #expect(try await harness.call("slow", ["ms": 1]) == "done", "the next call gets a new worker")
            }
        }
    }
}

/// Set once the test has sent SIGHUP.
private final class ReloadFlag: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() { state.withLock { $0 = true } }
}

/// A process's thread count and resident memory, from `/proc/<pid>/status`, and the CPU it uses.
struct HostUsage {
    let threads: Int
    let residentKiB: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0
        }
        threads = field("Threads")
        residentKiB = field("VmRSS")
    }

    /// The fields of `/proc/<pid>/stat` after the command name, from the state on (so the nice
    /// value is at 16, user and system CPU time at 11 and 12).
    static func statFields(of pid: Int) throws -> [Substring] {
        try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8).split(separator: ")").last!.split(separator: " ")
    }

    /// The cores process `pid` used over `duration`, from its CPU time in `/proc/<pid>/stat`.
    static func cores(usedBy pid: Int, over duration: Duration) async throws -> Double {
        func ticks() throws -> Double {
            let fields = try statFields(of: pid)
            return Double(fields[11])! + Double(fields[12])!
        }
        let before = try ticks()
        let started = ContinuousClock.now
        try await Task.sleep(for: duration)
        let used = try ticks() - before
        return used / Double(sysconf(Int32(_SC_CLK_TCK))) / ((ContinuousClock.now - started) / .seconds(1))
    }
}
