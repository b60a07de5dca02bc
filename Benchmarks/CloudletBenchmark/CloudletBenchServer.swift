import Cloudlet
import CloudletServer
import Hummingbird
import Logging
import NIOCore

/// The real Cloudlet server, built through its public API with one app whose id and client key
/// are the load generator's.
enum CloudletBenchServer {
    /// Hooks on the benchmark's class: a `beforeSave` that sets a field and an `afterSave` that
    /// only reads the object.
    static var hooks: HookRegistry {
        var registry = HookRegistry()
        registry.beforeSave(SaveRequest.className) { request in request.object["checked"] = true }
        registry.afterSave(SaveRequest.className) { request in _ = request.object["title"] }
        return registry
    }

    /// A Cloudlet server with `registry`'s hooks, its data under `dataDirectory`, mounted at `/parse`
    /// on 127.0.0.1 with a port the system picks.
    static func application(
        registry: HookRegistry, dataDirectory: String, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> some ApplicationProtocol {
        let server = try CloudletApplication(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, mountPath: "/parse"),
            apps: [
                AppDefinition(
                    id: SaveRequest.appId, executor: InProcessHookExecutor(registry: registry),
                    clientKey: SaveRequest.clientKey, masterKey: "mk")
            ],
            logger: logger)
        return server.application(onServerRunning: onServerRunning)
    }
}
