import Cloudlet
import CloudletIsolation
import CloudletRuntime
import Foundation
import Logging

/// Starts the hook executors of apps from their registry settings: a worker pool of the app's
/// executable (or of the serving binary, for ``AppSettings/selfExecutable``), or the serving
/// binary's own hooks in-process.
public struct AppLauncher: Sendable {
    /// The serving binary's own hooks, for ``AppSettings/selfExecutable`` in-process; nil if it has none.
    public var ownHooks: HookRegistry?
    /// The serving binary, for ``AppSettings/selfExecutable`` in worker processes; nil if it cannot serve as a worker.
    public var ownExecutablePath: String?
    /// How workers are fenced in before they run hooks (Landlock, no capabilities); nil for not at all.
    public var confinement: WorkerConfinement?
    /// The most CPU, in cores, each app's workers take together while their calls run long (see
    /// ``WorkerPoolConfiguration/longCallCores``); 0 for no cap.
    public var longCallCores: Double
    let logger: Logger
    let hookLogger: Logger

    /// A launcher for a binary whose own hooks are `ownHooks` and which is `ownExecutablePath`,
    /// fencing workers in with `confinement` and capping each app's long calls at `longCallCores`;
    /// workers' own messages go to `logger`, the apps' hook logs to `hookLogger`.
    public init(
        ownHooks: HookRegistry? = nil, ownExecutablePath: String? = nil, confinement: WorkerConfinement? = nil,
        longCallCores: Double = WorkerPoolConfiguration.defaultLongCallCores,
        logger: Logger, hookLogger: Logger
    ) {
        self.ownHooks = ownHooks
        self.ownExecutablePath = ownExecutablePath
        self.confinement = confinement
        self.longCallCores = longCallCores
        self.logger = logger
        self.hookLogger = hookLogger
    }

    /// The executor of app `id` with `settings`, and the pool it needs running, if any; workers get
    /// `workers/<id>` in `dataDirectory` as their own folder, and their restarts count in `metrics`.
    func executor(
        for id: String, _ settings: AppSettings, dataDirectory: String, metrics: CloudletMetrics
    ) async throws -> (executor: any HookExecutor, pool: WorkerPool?) {
        let isOwn = settings.hooksExecutable == AppSettings.selfExecutable
        switch settings.isolation {
        case .inProcess:
            guard isOwn, let ownHooks else {
                throw AppSettings.invalid("app \(id): in-process isolation runs only the serving binary's own hooks (hooks \"self\")")
            }
            return (InProcessHookExecutor(registry: ownHooks), nil)
        case .process:
            guard let path = isOwn ? ownExecutablePath : settings.hooksExecutable else {
                throw AppSettings.invalid("app \(id): this server has no hooks of its own; give the app a hooks executable")
            }
            if let problem = AppSettings.executableProblem(path) { throw AppSettings.invalid("app \(id): \(problem)") }
            let configuration = WorkerPoolConfiguration(
                appId: id, executablePath: path, workerCount: settings.workerCount, memoryLimitMegabytes: settings.workerMemoryMegabytes,
                workingFolder: URL(fileURLWithPath: dataDirectory).appendingPathComponent("workers/\(id)").path, confinement: confinement,
                longCallCores: longCallCores)
            let pool = try await WorkerPool.launch(configuration, logger: logger, hookLogger: hookLogger, metrics: metrics)
            return (ProcessHookExecutor(pool: pool), pool)
        }
    }
}
