import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging

/// A server on a free loopback port, with every channel handler it serves with (connection bounds,
/// pacing, refusals before the router), for the suites whose point is the socket.
struct LiveServer: Sendable {
    /// The port it listens on.
    let port: Int
    /// What it counts.
    let metrics: CloudletMetrics
    /// The apps it hosts, with their runtimes.
    let apps: AppDirectory
    /// Its data folder (each app's database is `apps/<id>.sqlite` in it).
    let dataDirectory: URL
    /// Sends a request, its URI from `/`, over the test client's connection.
    let transport: ParseTestClient.Transport

    /// An app with no hooks, its keys `client-<id>` and `master-<id>` unless given.
    static func app(
        _ id: String, clientKey: String? = nil, masterKey: String? = nil, rateLimits: RateLimitPolicy = .off
    ) -> AppDefinition {
        AppDefinition(
            id: id, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: clientKey ?? "client-\(id)",
            masterKey: masterKey ?? "master-\(id)", rateLimits: rateLimits)
    }

    /// A Parse client of app `id`, with the keys ``app(_:clientKey:masterKey:rateLimits:)`` gives
    /// unless named.
    func client(_ id: String, clientKey: String? = nil, masterKey: String? = nil) -> ParseTestClient {
        ParseTestClient(appId: id, clientKey: clientKey ?? "client-\(id)", masterKey: masterKey ?? "master-\(id)", transport: transport)
    }

    /// Runs `body` with a fresh server of `apps` in a new data folder, on `clock`, logging at
    /// `logLevel`; `adjust` changes its configuration.
    static func with<Value: Sendable>(
        apps: [AppDefinition] = [app("a")], clock: any CloudletClock = SystemClock(), logLevel: Logger.Level = .warning,
        adjust: (inout ServerConfiguration) -> Void = { _ in }, _ body: @Sendable (LiveServer) async throws -> Value
    ) async throws -> Value {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = logLevel
        let metrics = CloudletMetrics()
        var configuration = ServerConfiguration(port: 0, dataDirectory: folder.path, passwordHashCost: 4)
        adjust(&configuration)
        let server = try await CloudletApplication(configuration: configuration, apps: apps, logger: logger, clock: clock, metrics: metrics)
        defer { server.closeDatabase() }
        return try await server.application().test(.live) { client in
            try await body(
                LiveServer(port: client.port!, metrics: metrics, apps: server.apps, dataDirectory: folder) { method, uri, headers, requestBody in
                    let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                    return (response.status.code, response.headers, response.body)
                })
        }
    }
}
