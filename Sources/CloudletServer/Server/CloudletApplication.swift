import Cloudlet
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds a Cloudlet server: opens the host and app databases under the data folder, hosts the
/// given apps and serves the Parse REST API.
///
/// ```swift
/// let server = try CloudletApplication(configuration: .init(port: 1337), apps: [
///     AppDefinition(id: "dev", executor: InProcessHookExecutor(registry: AppHooks.registry())),
/// ], logger: logger)
/// try await server.application.runService()
/// ```
public struct CloudletApplication: Sendable {
    /// The hosted apps, with their keys.
    public let apps: AppDirectory
    /// The configuration the server was built with.
    public let configuration: ServerConfiguration
    /// The server's metrics, served at `/metrics`.
    public let metrics: CloudletMetrics
    private let logger: Logger
    private let clock: any CloudletClock
    private let appServices: [any Service]

    /// Opens the databases and prepares each app. Creates the data folder if needed. Requests and
    /// hook runs are counted in `metrics` (a new registry by default; pass the one the worker
    /// pools count restarts in).
    public init(
        configuration: ServerConfiguration, apps definitions: [AppDefinition], logger: Logger, clock: any CloudletClock = SystemClock(),
        metrics: CloudletMetrics = CloudletMetrics()
    ) throws {
        let appsFolder = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("apps")
        try FileManager.default.createDirectory(at: appsFolder, withIntermediateDirectories: true)
        let host = try HostDatabase(path: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("host.sqlite").path)
        var hosted: [HostedApp] = []
        for definition in definitions {
            guard ParseNames.isValidAppId(definition.id) else {
                throw ParseError(code: 1, message: "invalid app id \(definition.id): use letters, digits, - and _")
            }
            metrics.register(app: definition.id)
            let keys = try host.ensureApp(definition.id, clientKey: definition.clientKey, masterKey: definition.masterKey)
            let storage = try SQLiteObjectStorage(
                path: appsFolder.appendingPathComponent("\(definition.id).sqlite").path, durability: configuration.durability)
            let runtime = AppRuntime(
                appId: definition.id, storage: storage, executor: definition.executor, clock: clock,
                limits: AppRuntime.Limits(passwordHasher: PasswordHasher(cost: configuration.passwordHashCost)), logger: logger,
                hookLogger: Logger(label: "cloudlet.hooks"),
                hookRuns: HookRunLog(appId: definition.id, storage: storage, retention: configuration.hookRunRetention, metrics: metrics),
                metrics: metrics)
            hosted.append(
                HostedApp(
                    id: definition.id, keys: keys, runtime: runtime,
                    rateLimiter: RateLimiter(policy: definition.rateLimits, clock: clock)))
        }
        self.apps = AppDirectory(hosted)
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.appServices = definitions.flatMap(\.services)
    }

    /// The router: the Parse REST API, `/health`, `/ready`, `/metrics` and the hook logs API, with
    /// every request logged and counted.
    public func router() -> Router<CloudletRequestContext> {
        let router = Router(context: CloudletRequestContext.self)
        router.add(middleware: RequestLogMiddleware(apps: apps, metrics: metrics))
        OperationsRoutes(apps: apps, metrics: metrics, operatorKey: configuration.operatorKey, mountPath: configuration.normalizedMountPath)
            .add(to: router)
        AdminLogsRoute(apps: apps, operatorKey: configuration.operatorKey, clock: clock).add(to: router)
        ParseAPI(
            apps: apps, mountPath: configuration.normalizedMountPath, maximumBodyBytes: configuration.maximumBodyBytes,
            trustedProxies: configuration.trustedProxies
        ).addRoutes(to: router)
        return router
    }

    /// The HTTP application: the router, the apps' services (worker pools), the outbox replay
    /// service and the hook log writer. Run it with `runService()`,
    /// which stops gracefully on SIGTERM or SIGINT, finishing requests in flight.
    public func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            server: .http1(configuration: .init(additionalChannelHandlers: [MalformedRequestHandler()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Cloudlet"),
            services: appServices + [
                OutboxReplayService(apps: apps, logger: logger),
                HookRunWriter(logs: apps.all.compactMap(\.runtime.hookRuns), interval: .milliseconds(100), logger: logger),
            ],
            onServerRunning: onServerRunning,
            logger: logger)
    }
}
