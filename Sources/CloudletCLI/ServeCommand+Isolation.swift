import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Logging

/// Where `serve` runs the default app's hooks.
enum Isolation: String, ExpressibleByArgument, CaseIterable {
    /// In worker processes, a pool per app: a hook that traps or hangs costs only its worker.
    case process
    /// As closures in the server's own process: fastest, but a trap ends the server.
    case inProcess = "in-process"
}

/// Another app `serve` hosts, named on the command line as `--app id=path/to/executable`: its hooks
/// run in worker processes started from that executable (built with `CloudletCommand`).
struct HostedExecutable: ExpressibleByArgument {
    let appId: String
    let executablePath: String

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        appId = parts[0]
        executablePath = parts[1]
    }
}

/// How `serve` starts worker pools: the flags, with their environment variables, resolved.
struct WorkerSettings {
    var isolation: Isolation
    var workerCount: Int
    var memoryLimitMegabytes: Int
    /// Where the pools count worker restarts.
    var metrics: CloudletMetrics

    /// The app `id` whose hooks are `registry`: in-process, or in a pool of workers running this very
    /// executable in worker mode.
    func definition(id: String, registry: HookRegistry, clientKey: String?, masterKey: String?) async throws -> AppDefinition {
        guard isolation == .process else {
            return AppDefinition(id: id, executor: InProcessHookExecutor(registry: registry), clientKey: clientKey, masterKey: masterKey)
        }
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        return try await definition(id: id, executablePath: executable, clientKey: clientKey, masterKey: masterKey)
    }

    /// The app `id` whose hooks run in a pool of workers started from `executablePath`.
    func definition(id: String, executablePath: String, clientKey: String? = nil, masterKey: String? = nil) async throws -> AppDefinition {
        let configuration = WorkerPoolConfiguration(
            appId: id, executablePath: executablePath, workerCount: workerCount, memoryLimitMegabytes: memoryLimitMegabytes)
        let pool = try await WorkerPool.launch(
            configuration, logger: Logger(label: "cloudlet.workers"), hookLogger: Logger(label: "cloudlet.hooks"), metrics: metrics)
        return AppDefinition(id: id, executor: ProcessHookExecutor(pool: pool), clientKey: clientKey, masterKey: masterKey, services: [pool])
    }
}
