import Cloudlet
import CloudletWire
import Foundation
import Synchronization
import Testing

@testable import CloudletIsolation
@testable import CloudletServer
@testable import CloudletTesting

/// The pool's message handling and supervision, with its workers run in memory: what a worker may
/// say and when, and what becomes of one that overruns, checked without spawning a process.
@Suite struct InMemoryWorkerPoolTests {
    /// How many calls of `stuck` have started in a worker.
    static let stuckCalls = Atomic(0)

    static func registry() -> HookRegistry {
        var hooks = HookRegistry()
        hooks.function("hello") { _ in "world" }
        hooks.function("repeat") { request in .string(String(repeating: "x", count: request.params["count"]?.intValue ?? 0)) }
        hooks.function("stuck", timeLimit: .seconds(1)) { _ in
            stuckCalls.add(1, ordering: .relaxed)
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            return nil
        }
        return hooks
    }

    @Test func aWorkerThatSpeaksBeforeItsHelloIsCutOffAndItsSlotRestarted() async throws {
        let clock = ManualClock()
        let serve = InMemoryWire.connector(serving: Self.registry(), clock: clock)
        let (rogueClosed, closing) = AsyncStream.makeStream(of: Void.self)
        let rogueConnected = Mutex(false)
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 2),
            connectingWorkersWith: { slot, attach in
                let isFirst = rogueConnected.withLock { connected in
                    defer { connected = true }
                    return !connected
                }
                guard slot == 0, isFirst else { return try serve(slot, attach) }
                let (host, rogue) = InMemoryWire.pair()
                host.open(attach(host))
                rogue.open(WireReceiver(message: { _ in }, oversized: { _ in }, closed: { closing.yield() }))
                rogue.send(.result(id: 1, .success(json: ParseValue.null.jsonBuffer)))
            },
            logger: CapturedLogs().logger(label: "cloudlet.workers"), clock: clock)
        var closed = rogueClosed.makeAsyncIterator()
        await closed.next()
        #expect(!pool.isReady, "slot 0 has no worker that said hello")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            clock.advance(by: .seconds(1))
            let giveUp = ContinuousClock.now + .seconds(10)
            while !pool.isReady, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
            #expect(pool.isReady, "slot 0 was restarted after its backoff")
        }
    }

    @Test func aHookPastItsDeadlineHasItsWorkerKilledAndTheNextCallServedByAnother() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.registry()) { harness in
            let startedBefore = Self.stuckCalls.load(ordering: .relaxed)
            let stuck = Task { try await harness.call("stuck") }
            // Time moves once the call runs in its worker, and so waits for its answer under its
            // deadline. Moved sooner, the deadline could pass before the call is sent, and the
            // supervisor kill the worker for it (141) before the call hears of its deadline (124).
            let giveUp = ContinuousClock.now + .seconds(10)
            while Self.stuckCalls.load(ordering: .relaxed) == startedBefore, ContinuousClock.now < giveUp {
                try await Task.sleep(for: .milliseconds(2))
            }
            harness.clock.advance(by: .seconds(2))
            let error = try await #require(throws: ParseError.self) { try await stuck.value }
            #expect(error.code == 124)
            #expect(try await harness.call("hello") == "world")
            #expect(harness.logs.all.contains { $0.message == "killing worker" && $0.metadata["reason"] == "a hook ran past its deadline" })
        }
    }

    @Test func aWorkerThatLeavesItsHealthCheckUnansweredIsKilled() async throws {
        let clock = ManualClock()
        let logs = CapturedLogs()
        let (pings, pinged) = AsyncStream.makeStream(of: UInt64.self)
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: { _, attach in
                let (host, deaf) = InMemoryWire.pair()
                host.open(attach(host))
                deaf.open(WireReceiver(message: { if case .ping(let id) = $0 { pinged.yield(id) } }, oversized: { _ in }))
                deaf.send(.hello(WireHello(processId: 1, hooks: [])))
            },
            logger: logs.logger(label: "cloudlet.workers"), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            clock.advance(by: .seconds(6))
            var arrived = pings.makeAsyncIterator()
            _ = await arrived.next()
            clock.advance(by: .seconds(6))
            let killed = { logs.all.filter { $0.message == "killing worker" }.map { $0.metadata["reason"] ?? "" } }
            let giveUp = ContinuousClock.now + .seconds(10)
            while killed().isEmpty, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
            #expect(killed() == ["missed a health check"])
        }
    }

    /// A replacement on probation starts in the idle CPU group, where a busy host's cores leave it
    /// nothing: after one crash, the app's calls would wait for a worker that never says hello.
    @Test func aWorkerThatCrashedOnceIsReplacedOffProbationAndASecondEndPutsTheNextOnIt() async throws {
        let clock = ManualClock()
        let registry = Self.registry()
        let workerEnds = Mutex<[InMemoryWire]>([])
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: { _, attach in
                let (host, worker) = InMemoryWire.pair()
                host.open(attach(host))
                let session = WorkerSession(registry: registry, clock: clock)
                worker.open(session.receiver)
                session.start(on: worker)
                workerEnds.withLock { $0.append(worker) }
            },
            logger: CapturedLogs().logger(label: "cloudlet.workers"), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            for (workersStarted, onProbation) in [(2, false), (3, true)] {
                workerEnds.withLock { $0.last }?.close()  // the worker ends on its own, as a crash does
                let giveUp = ContinuousClock.now + .seconds(10)
                // The clock moves only until the replacement starts: probation ends 1 s after it does.
                while workerEnds.withLock({ $0.count }) < workersStarted, ContinuousClock.now < giveUp {
                    clock.advance(by: .milliseconds(10))
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(pool.state.withLock { $0.workers[0]?.lifecycle.replacesAnEndedWorker } == onProbation)
                while !pool.isReady, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
                #expect(pool.isReady)
            }
        }
    }

    /// A worker that ends before the pool's service runs leaves its slot empty with a restart
    /// pending: the service starts that slot's worker once, by the restart, not once more beside it
    /// (the second would take the slot from the first, whose hello is then refused).
    @Test func aSlotWhoseWorkerEndedBeforeTheServiceRanGetsOneReplacement() async throws {
        let clock = ManualClock()
        let registry = Self.registry()
        let workerEnds = Mutex<[InMemoryWire]>([])
        let pings = Atomic(0)
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: { _, attach in
                let (host, worker) = InMemoryWire.pair()
                host.open(attach(host))
                let session = WorkerSession(registry: registry, clock: clock)
                var receiver = session.receiver
                receiver.message = { message in
                    if case .ping = message { pings.add(1, ordering: .relaxed) }
                    session.receiver.message(message)
                }
                worker.open(receiver)
                session.start(on: worker)
                workerEnds.withLock { $0.append(worker) }
            },
            logger: CapturedLogs().logger(label: "cloudlet.workers"), clock: clock)
        workerEnds.withLock { $0.last }?.close()
        let giveUp = ContinuousClock.now + .seconds(10)
        while pool.state.withLock({ $0.restarts[0] == nil }), ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            // Once the restart is taken and its worker has said hello, a health check is the next
            // supervision tick's: every start of the tick that took the restart is done by then.
            while !pool.isReady || pool.state.withLock({ !$0.restarts.isEmpty }), ContinuousClock.now < giveUp {
                try await Task.sleep(for: .milliseconds(5))
            }
            clock.advance(by: .seconds(6))
            while pings.load(ordering: .relaxed) == 0, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
            #expect(pings.load(ordering: .relaxed) > 0)
            #expect(workerEnds.withLock { $0.count } == 2, "one replacement for the ended worker")
        }
    }

    /// A pool with nothing to watch ticks once a second, not every 50 ms; the first call placed on a
    /// worker wakes its supervisor, which watches it (and kills its worker when it overruns) as ever.
    @Test func anIdlePoolsSupervisorRestsUntilACallComes() async throws {
        let clock = ManualClock()
        let logs = CapturedLogs()
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: InMemoryWire.connector(serving: Self.registry(), clock: clock),
            logger: logs.logger(label: "cloudlet.workers"), clock: clock)
        let rests = { pool.state.withLock { $0.supervisorRests } }
        func waitUntil(_ condition: () -> Bool) async throws {
            let giveUp = ContinuousClock.now + .seconds(10)
            while !condition(), ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            try await waitUntil { pool.isReady && rests() }
            #expect(rests(), "ready and idle, the supervisor rests")

            let harness = try HookHarness(executor: ProcessHookExecutor(pool: pool), clock: clock, logs: logs)
            let startedBefore = Self.stuckCalls.load(ordering: .relaxed)
            let stuck = Task { try await harness.call("stuck") }
            try await waitUntil { Self.stuckCalls.load(ordering: .relaxed) > startedBefore }
            #expect(!rests(), "the call woke it")
            try await Task.sleep(for: .milliseconds(200))
            #expect(!rests(), "it watches the call in flight")

            clock.advance(by: .seconds(2))
            #expect(try await #require(throws: ParseError.self) { try await stuck.value }.code == 124)
            try await waitUntil { logs.all.contains { $0.message == "killing worker" } }
            #expect(logs.all.contains { $0.message == "killing worker" && $0.metadata["reason"] == "a hook ran past its deadline" })
            #expect(try await harness.call("hello") == "world")
            try await waitUntil(rests)
            #expect(rests(), "with the replacement ready and idle, it rests again")
        }
    }

    /// The pool's end takes frames of 4 KiB at most; the worker's sends up to 1 MiB.
    @Test func aResultOverThePoolsFrameBoundFailsOnlyItsCallAndTheWorkerCarriesOn() async throws {
        let clock = ManualClock()
        let logs = CapturedLogs()
        let registry = Self.registry()
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: { _, attach in
                let (host, worker) = InMemoryWire.pair(maximumFrameBytes: (4_096, 1 << 20))
                host.open(attach(host))
                let session = WorkerSession(registry: registry, clock: clock)
                worker.open(session.receiver)
                session.start(on: worker)
            },
            logger: logs.logger(label: "cloudlet.workers"), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            let harness = try HookHarness(executor: ProcessHookExecutor(pool: pool), clock: clock, logs: logs)
            let error = try await #require(throws: ParseError.self) { try await harness.call("repeat", ["count": 5_000]) }
            #expect(error.code == 141 && error.message == "hook result too large")
            #expect(try await harness.call("repeat", ["count": 3]) == "xxx")
            #expect(!logs.all.contains { $0.message == "killing worker" })
        }
    }
}
