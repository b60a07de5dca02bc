import Cloudlet
import CloudletPostgres
import CloudletRuntime
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// Builds a Cloudlet server: opens the host and app databases under the data folder, hosts the
/// given apps and serves the Parse REST API.
///
/// ```swift
/// let server = try await CloudletApplication(configuration: .init(port: 1337), apps: [
///     AppDefinition(id: "dev", executor: InProcessHookExecutor(registry: AppHooks.registry())),
/// ], logger: logger)
/// try await server.application.runService()
/// ```
public struct CloudletApplication: Sendable {
    /// The hosted apps, with their keys, as they are now.
    public let apps: AppDirectory
    /// The registry the apps come from (`host.sqlite` in the data folder).
    public let registry: AppRegistry
    /// Keeps the apps in step with the registry, and runs their worker pools.
    public let supervisor: AppSupervisor
    /// The configuration the server was built with.
    public let configuration: ServerConfiguration
    /// The server's metrics, served at `/metrics`.
    public let metrics: CloudletMetrics
    private let operatorKey: OperatorKeyGuard
    private let connections: OpenConnections
    private let clock: any CloudletClock
    private let logger: Logger
    private let appServices: [any Service]

    /// Opens the registry and serves `definitions` (apps whose executor the caller made: each is
    /// made sure to exist in the registry, with its keys if given) at once. Other apps of the
    /// registry are started by ``loadApps()``, or when the server runs, with executors `launcher` makes
    /// (by default one with no hooks of its own, logging workers and hooks to `logger`).
    /// Requests, hook runs and worker restarts are counted in `metrics`. Creates the data folder if needed.
    /// Connections and apps share the process's descriptor limit as it is now (see ``ConnectionLimits``).
    public init(
        configuration: ServerConfiguration, apps definitions: [AppDefinition] = [], registry: AppRegistry? = nil,
        launcher: AppLauncher? = nil, logger: Logger, clock: any CloudletClock = SystemClock(),
        metrics: CloudletMetrics = CloudletMetrics()
    ) async throws {
        let appsFolder = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("apps")
        try FileManager.default.createDirectory(at: appsFolder, withIntermediateDirectories: true)
        let registry = if let registry { registry } else { try await AppRegistry.open(configuration) }
        let limits = configuration.connections, descriptorLimit = ProcessDescriptors.limit
        let connections = OpenConnections(
            maximum: limits.connectionBound(descriptorLimit: descriptorLimit), maximumPerAddress: limits.maximumConnectionsPerAddress,
            trustedProxies: configuration.trustedProxies)
        let supervisor = AppSupervisor(
            registry: registry, definitions: definitions, launcher: launcher ?? AppLauncher(logger: logger, hookLogger: logger), configuration: configuration, clock: clock,
            metrics: metrics,
            descriptors: AppDescriptors(limit: descriptorLimit, reserve: limits.descriptorReserve, connections: connections),
            logger: logger)
        for definition in definitions {
            var settings = try await registry.app(definition.id)?.settings ?? AppSettings()
            settings.rateLimits = definition.rateLimits
            let app = try await registry.ensure(
                definition.id, settings: settings, clientKey: definition.clientKey, masterKey: definition.masterKey)
            try await supervisor.install(app.record, executor: definition.executor, pool: nil)
        }
        self.apps = supervisor.directory
        self.registry = registry
        self.supervisor = supervisor
        self.connections = connections
        let storedOperatorKey = configuration.operatorKey == nil ? try await registry.operatorKey() : nil
        self.operatorKey = OperatorKeyGuard(
            key: configuration.operatorKey ?? storedOperatorKey, trustedProxies: configuration.trustedProxies, clock: clock)
        self.metrics = metrics
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        self.appServices = definitions.flatMap(\.services)
    }

    /// Closes the connections to the PostgreSQL database the registry and the apps' data are in, if
    /// they are in one: for a server that is done, since its apps' stores fail after.
    public func closeDatabase() {
        registry.database?.close()
    }

    /// Starts every app of the registry not started yet (launching worker pools); throws the first
    /// app's failure, such as a hook over its app's time-limit cap.
    public func loadApps() async throws {
        try await supervisor.loadAll()
    }

    /// The router: the Parse REST API, the admin API with the hook logs, `/health`, `/ready` and
    /// `/metrics`, with every request logged and counted. Every `GET` route answers `HEAD` too:
    /// the same status and headers (`Content-Length` and `Content-Type` among them), no body.
    public func router() -> Router<CloudletRequestContext> {
        let router = Router(context: CloudletRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(apps: apps, metrics: metrics))
        OperationsRoutes(
            apps: apps, metrics: metrics, operatorKey: operatorKey, mountPath: configuration.normalizedMountPath,
            diskFloor: configuration.freeDiskFloor, database: registry.database)
            .add(to: router)
        ParseAPI(
            apps: apps, mountPath: configuration.normalizedMountPath, maximumBodyBytes: configuration.maximumBodyBytes,
            trustedProxies: configuration.trustedProxies
        ).addRoutes(to: router)
        let admin = router.group("admin").add(middleware: OperatorKeyMiddleware(operatorKey: operatorKey))
        AdminLogsRoute(apps: apps, clock: clock).add(to: admin)
        AdminAPI(registry: registry, supervisor: supervisor).addRoutes(to: admin)
        return router
    }

    /// The most connections the server keeps open at once.
    public var maximumConnections: Int { connections.maximum }

    /// The HTTP application: the router, LiveQuery's WebSockets, the apps' services (the supervisor
    /// and its worker pools), the hook log writer, the job scheduler, the work service (queued work:
    /// after hooks, job runs, push deliveries) and `services`. Run it with `runService()`, which
    /// stops gracefully on SIGTERM or SIGINT, finishing requests in flight.
    public func application(
        services: [any Service] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let routes = ParseRouteTable(routes: ParseAPI.routes, mountPath: configuration.normalizedMountPath)
        let (apps, metrics, logger, connections) = (apps, metrics, logger, connections)
        let (limits, trustedProxies) = (configuration.connections, configuration.trustedProxies)
        let pace = AddressPace(quota: limits.requestsPerAddress)
        let liveQuery = LiveQueryServer(
            apps: apps, settings: configuration.liveQuery, mountPath: configuration.normalizedMountPath, metrics: metrics, logger: logger)
        return Application(
            router: router(),
            server: HTTPServerBuilder { responder in
                let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [
                    ConnectionDeadlineHandler(limits: limits, metrics: metrics), MalformedRequestHandler(),
                    AddressPacingHandler(pace: pace, trustedProxies: trustedProxies, metrics: metrics),
                    QuotaRefusalHandler(apps: apps, routes: routes, trustedProxies: trustedProxies, metrics: metrics, logger: logger),
                ])
                let http = HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(http1: http1, ws: liveQuery.webSocketConfiguration)
                ) { request, channel, _ in
                    try liveQuery.shouldUpgrade(request, channel: channel, deadlines: limits)
                }
                return GuardedChannel(http: http, connections: connections, limits: limits, metrics: metrics)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Cloudlet"),
            services: appServices + [
                supervisor,
                HookRunWriter(apps: apps, interval: .milliseconds(100), logger: logger),
                JobSchedulerService(apps: apps, clock: clock, logger: logger, metrics: metrics),
                WorkService(apps: apps, settings: configuration.work, push: configuration.pushDelivery),
                liveQuery,
            ] + services,
            onServerRunning: { [supervisor] channel in
                supervisor.serverOrigin.listening(on: channel.localAddress)
                await onServerRunning(channel)
            },
            logger: logger)
    }
}
