import Cloudlet
import CloudletServer
import Foundation
import LoadSupport
import Logging

/// The servers the benchmark compares, each in a process of its own.
enum BenchmarkScenario: CaseIterable {
    /// A bare Hummingbird + GRDB route: the floor.
    case bare
    /// PocketBase with a JavaScript hook that sets one field before each create: the peer.
    case pocketBase
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
        case .pocketBase: "PocketBase \(PocketBaseServer.version), JS hook"
        case .cloudlet: "cloudlet, no hooks"
        case .cloudletWithHooksInProcess: "hooks in-process"
        case .cloudletWithHooksInWorkers: "hooks in workers (default)"
        }
    }

    /// The scenario's name on the command line (`--scenarios`).
    var option: String {
        switch self {
        case .bare: "bare"
        case .pocketBase: "pocketbase"
        case .cloudlet: "no-hooks"
        case .cloudletWithHooksInProcess: "in-process"
        case .cloudletWithHooksInWorkers: "workers"
        }
    }

    /// Starts this scenario's server in a process of its own: PocketBase from `pocketBase`, the others
    /// as this executable's `serve <option>`.
    func launch(pocketBase: String?) throws -> ServerProcess {
        switch self {
        case .pocketBase:
            guard let pocketBase else { throw BenchmarkFailure("no pocketbase binary") }
            return try PocketBaseServer.start(binary: pocketBase)
        default:
            return try ServerProcess.benchmarkServer(self)
        }
    }

    /// In the process `launch` starts: starts this scenario's server on fresh data; `stop` ends it and its
    /// workers. `BENCHMARK_WORKER_EXECUTABLE` names another executable for the workers (a wrapper that
    /// runs this one under a profiler, as `Scripts/hook-path-instructions.sh` does), with time to match.
    func start(logger: Logger) async throws -> (server: RunningServer, stop: @Sendable () async throws -> Void) {
        switch self {
        case .pocketBase:
            throw BenchmarkFailure("PocketBase is not served by this executable")
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
            var configuration = WorkerPoolConfiguration(appId: SaveRequest.appId, executablePath: Bundle.main.executablePath ?? CommandLine.arguments[0])
            if let profiled = ProcessInfo.processInfo.environment["BENCHMARK_WORKER_EXECUTABLE"] {
                // Workers under a profiler start and answer health checks some 50 times slower.
                configuration.executablePath = profiled
                configuration.startupTimeout = .seconds(120)
                configuration.healthCheckTimeout = .seconds(60)
            }
            let pool = try await WorkerPool.launch(configuration, logger: logger)
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
            try await CloudletBenchServer.application(executor: executor, dataDirectory: directory, logger: logger, onServerRunning: onRunning)
        }
        return (server, { try await server.stop() })
    }
}
