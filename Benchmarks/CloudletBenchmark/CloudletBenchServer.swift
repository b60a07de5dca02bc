import Cloudlet
import CloudletServer
import Hummingbird
import Logging
import NIOCore

/// Hooks on the benchmark's class: a `beforeSave` that sets the field PocketBase's hook sets and an
/// `afterSave` that only reads the object. The benchmark's executable is also its own worker,
/// serving these hooks.
enum BenchmarkHooks: HookModule {
    /// Long enough for the first calls of a worker under callgrind, which translates the code they run
    /// (`Scripts/hook-path-instructions.sh`); a call costs the same whatever its limit.
    static let timeLimit = Duration.seconds(60)

    static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave(SaveRequest.className, timeLimit: timeLimit) { request in
            request.object[SaveRequest.hookField] = .string(SaveRequest.hookValue)
        }
        hooks.afterSave(SaveRequest.className, timeLimit: timeLimit) { request in _ = request.object["text"] }
    }
}

/// The real Cloudlet server, built through its public API with one app whose id and client key
/// are the load generator's.
enum CloudletBenchServer {
    /// A Cloudlet server whose hooks run on `executor`, its data under `dataDirectory`, mounted at `/parse`
    /// on 127.0.0.1 with a port the system picks.
    static func application(
        executor: any HookExecutor, dataDirectory: String, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws -> some ApplicationProtocol {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, mountPath: "/parse")
        // Every client of the benchmark is on one address: requests are not paced by address.
        configuration.connections.requestsPerAddress = nil
        let server = try await CloudletApplication(
            configuration: configuration,
            apps: [
                AppDefinition(
                    id: SaveRequest.appId, executor: executor,
                    clientKey: SaveRequest.clientKey, masterKey: "mk")
            ],
            logger: logger)
        return server.application(onServerRunning: onServerRunning)
    }
}
