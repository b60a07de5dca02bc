import Cloudlet
import CloudletServer
import Foundation
import LoadSupport
import Logging

/// The servers the benchmark compares.
enum BenchmarkScenario: CaseIterable {
    /// A bare Hummingbird + GRDB route: the floor.
    case bare
    /// Cloudlet with no hooks.
    case cloudlet
    /// Cloudlet with a `beforeSave` and an `afterSave` on the saved class, run in this process.
    case cloudletWithHooksInProcess
    /// The same hooks in worker processes, as `cloudlet serve` runs them: the product's default.
    case cloudletWithHooksInWorkers

    /// The name in the report.
    var title: String {
        switch self {
        case .bare: "bare baseline"
        case .cloudlet: "cloudlet, no hooks"
        case .cloudletWithHooksInProcess: "hooks in-process"
        case .cloudletWithHooksInWorkers: "hooks in workers (default)"
        }
    }

    /// The scenario's name on the command line (`--scenarios`).
    var option: String {
        switch self {
        case .bare: "bare"
        case .cloudlet: "no-hooks"
        case .cloudletWithHooksInProcess: "in-process"
        case .cloudletWithHooksInWorkers: "workers"
        }
    }

    /// Starts this scenario's server on fresh data; `stop` ends it and its workers.
    func start(logger: Logger) async throws -> (server: RunningServer, stop: @Sendable () async throws -> Void) {
        switch self {
        case .bare:
            let server = try await RunningServer.start { directory, onRunning in
                try BareBaseline.application(dataDirectory: directory, logger: logger, onServerRunning: onRunning)
            }
            return (server, { try await server.stop() })
        case .cloudlet:
            return try await Self.cloudlet(InProcessHookExecutor(registry: HookRegistry()), logger: logger)
        case .cloudletWithHooksInProcess:
            return try await Self.cloudlet(InProcessHookExecutor(registry: BenchmarkHooks.registry()), logger: logger)
        case .cloudletWithHooksInWorkers:
            let pool = try await WorkerPool.launch(
                WorkerPoolConfiguration(appId: SaveRequest.appId, executablePath: Bundle.main.executablePath ?? CommandLine.arguments[0]),
                logger: logger)
            let supervision = Task { try await pool.run() }
            let (server, stopServer) = try await Self.cloudlet(ProcessHookExecutor(pool: pool), logger: logger)
            return (server, {
                try await stopServer()
                supervision.cancel()
                _ = try? await supervision.value
            })
        }
    }

    private static func cloudlet(
        _ executor: any HookExecutor, logger: Logger
    ) async throws -> (server: RunningServer, stop: @Sendable () async throws -> Void) {
        let server = try await RunningServer.start { directory, onRunning in
            try CloudletBenchServer.application(executor: executor, dataDirectory: directory, logger: logger, onServerRunning: onRunning)
        }
        return (server, { try await server.stop() })
    }
}
