import Cloudlet
import CloudletIsolation
import CloudletWire
import Foundation

extension HookHarness {
    /// Runs `body` with a harness whose hooks run in worker processes, as `serve` runs them: a hook
    /// that traps fails its call with 500/141 "hook crashed" and its worker is replaced, so a test can
    /// reproduce a crash. The workers are started from `executablePath` (an executable built with
    /// `CloudletCommand`, such as the app's own) and stopped when `body` returns.
    ///
    /// Deadlines and the killing of overdue workers follow `clock`, as in-process time limits do.
    /// ```swift
    /// try await HookHarness.withWorkers(executablePath: appExecutable) { harness in
    ///     await #expect(throws: ParseError.self) { try await harness.call("crash") }
    /// }
    /// ```
    public static func withWorkers<Result: Sendable>(
        executablePath: String, workerCount: Int = 1, memoryLimitMegabytes: Int = WorkerPoolConfiguration.defaultMemoryLimitMegabytes, clock: ManualClock = ManualClock(),
        _ body: (HookHarness) async throws -> Result
    ) async throws -> Result {
        let logs = CapturedLogs()
        let configuration = WorkerPoolConfiguration(
            appId: "test", executablePath: executablePath, workerCount: workerCount, memoryLimitMegabytes: memoryLimitMegabytes)
        let pool = try await WorkerPool.launch(
            configuration, logger: logs.logger(label: "cloudlet.workers"), hookLogger: logs.logger(label: "cloudlet.hooks"), clock: clock)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            return try await body(try HookHarness(executor: ProcessHookExecutor(pool: pool), clock: clock, logs: logs))
        }
    }
}

extension HookHarness {
    /// Runs `body` with a harness whose hooks run as they do in worker processes, but in memory:
    /// each worker is a ``WorkerSession`` serving `registry`, connected to a real ``WorkerPool`` over
    /// an ``InMemoryWire``. Every call, store call, log line and reply goes over the wire format,
    /// through the pool's message handling, its queue and its supervision, with no process to start.
    /// A hook past its limit (on `clock`) gets its worker killed and replaced, as in a process.
    /// ```swift
    /// try await HookHarness.withInMemoryWorkers(registry: AppHooks.registry()) { harness in
    ///     #expect(try await harness.call("hello") == "world")
    /// }
    /// ```
    public static func withInMemoryWorkers<Result: Sendable>(
        registry: HookRegistry, workerCount: Int = 1, clock: ManualClock = ManualClock(), _ body: (HookHarness) async throws -> Result
    ) async throws -> Result {
        let logs = CapturedLogs()
        let configuration = WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent/in-memory-worker", workerCount: workerCount)
        let pool = try await WorkerPool.launch(
            configuration, connectingWorkersWith: InMemoryWire.connector(serving: registry, clock: clock),
            logger: logs.logger(label: "cloudlet.workers"), hookLogger: logs.logger(label: "cloudlet.hooks"), clock: clock)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            return try await body(try HookHarness(executor: ProcessHookExecutor(pool: pool), clock: clock, logs: logs))
        }
    }
}

extension InMemoryWire {
    /// Connects each of a pool's workers to a new ``WorkerSession`` serving `registry` on `clock`.
    public static func connector(serving registry: HookRegistry, clock: any CloudletClock) -> WorkerConnector {
        { _, attach in
            let (host, worker) = InMemoryWire.pair()
            host.open(attach(host))
            let session = WorkerSession(registry: registry, clock: clock)
            worker.open(session.receiver)
            session.start(on: worker)
        }
    }
}
