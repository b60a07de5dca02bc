import Cloudlet
import CloudletServer
import Hummingbird
import Logging
import NIOCore

/// Hooks on the benchmark's class: a `beforeSave` that sets a field and an `afterSave` that only
/// reads the object. The benchmark's executable is also its own worker, serving these hooks.
enum BenchmarkHooks: HookModule {
    static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave(SaveRequest.className) { request in request.object["checked"] = true }
        hooks.afterSave(SaveRequest.className) { request in _ = request.object["title"] }
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
    ) throws -> some ApplicationProtocol {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, mountPath: "/parse")
        // Every client of the benchmark is on one address: requests are not paced by address.
        configuration.connections.requestsPerAddress = nil
        let server = try CloudletApplication(
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
