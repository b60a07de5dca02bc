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
    /// The host's data folder; each app's workers get `workers/<app>` in it as their own folder.
    var dataDirectory: String
    /// How workers are fenced in: through this binary's `confine` (Landlock where the kernel has it,
    /// no capabilities), on Linux.
    var confinement: WorkerConfinement? {
        #if os(Linux)
        WorkerConfinement(launcher: [Self.hostExecutable, "confine"])
        #else
        nil
        #endif
    }

    /// This very executable.
    static var hostExecutable: String { Bundle.main.executablePath ?? CommandLine.arguments[0] }

    /// Says how far workers are fenced in on this system (once, at start).
    func logConfinement(_ logger: Logger) {
        guard isolation == .process else { return }
        if let abi = Landlock.abiVersion {
            logger.info("workers are confined to their own folder by Landlock", metadata: ["landlock.abi": "\(abi)"])
        } else {
            logger.warning(
                "Landlock is not available: workers get a scrubbed environment and their own folder, but can read what the host's user can read")
        }
    }

    /// The app `id` whose hooks are `registry`: in-process, or in a pool of workers running this very
    /// executable in worker mode.
    func definition(id: String, registry: HookRegistry, clientKey: String?, masterKey: String?) async throws -> AppDefinition {
        guard isolation == .process else {
            return AppDefinition(id: id, executor: InProcessHookExecutor(registry: registry), clientKey: clientKey, masterKey: masterKey)
        }
        return try await definition(id: id, executablePath: Self.hostExecutable, clientKey: clientKey, masterKey: masterKey)
    }

    /// The app `id` whose hooks run in a pool of workers started from `executablePath`.
    func definition(id: String, executablePath: String, clientKey: String? = nil, masterKey: String? = nil) async throws -> AppDefinition {
        let workingFolder = URL(fileURLWithPath: dataDirectory).appendingPathComponent("workers").appendingPathComponent(id).path
        let configuration = WorkerPoolConfiguration(
            appId: id, executablePath: executablePath, workerCount: workerCount, memoryLimitMegabytes: memoryLimitMegabytes,
            workingFolder: workingFolder, confinement: confinement)
        let pool = try await WorkerPool.launch(
            configuration, logger: Logger(label: "cloudlet.workers"), hookLogger: Logger(label: "cloudlet.hooks"))
        return AppDefinition(id: id, executor: ProcessHookExecutor(pool: pool), clientKey: clientKey, masterKey: masterKey, services: [pool])
    }
}
