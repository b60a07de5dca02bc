import Cloudlet
import CloudletServer
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
