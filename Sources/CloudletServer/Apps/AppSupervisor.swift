import Cloudlet
import CloudletIsolation
import CloudletRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the apps a server hosts in step with its registry while it runs: it polls the registry's
/// `PRAGMA data_version` on SQLite (so changes made by `cloudlet apps` in another process arrive
/// within ``pollInterval``), or is woken by the notification another node's change sends on
/// PostgreSQL; ``reload()`` applies changes at once (the admin API calls it). A new app
/// gets its database, runtime and worker pool; a deleted one is refused at once and its pool
/// stopped; changed keys and limits are swapped in; a pool whose executable or worker settings
/// changed is replaced, the old one stopped once the calls it has could have ended.
///
/// The pools and push providers it starts run here, each in its own `ServiceGroup` inside this
/// service's task group, so they end with the server's graceful shutdown, or when this service's
/// task is cancelled: a pool's workers are then stopped and the providers' connections closed.
public final class AppSupervisor: Service, Sendable {
    /// The apps being served.
    public let directory = AppDirectory()
    let registry: AppRegistry
    let launcher: AppLauncher
    let configuration: ServerConfiguration
    /// Where clients reach the server: what the apps' file URLs start with.
    public let serverOrigin: ServerOrigin
    let clock: any CloudletClock
    /// Where the apps' requests, hook runs and worker restarts are counted.
    let metrics: CloudletMetrics
    /// The descriptors an app must fit in to start.
    let descriptors: AppDescriptors
    let logger: Logger
    /// How often a registry in `host.sqlite` is checked for changes made by other processes.
    let pollInterval: Duration
    /// Apps whose executor is given by the embedding code rather than launched from their settings.
    let definitions: [String: AppDefinition]
    /// Checks the identity tokens of every app's Sign in with Apple and Google logins.
    let identityTokens: IdentityTokenVerifier
    let entries = Mutex<[String: Entry]>([:])
    private let gate = SerialGate()
    private let poolCommands = AsyncStream.makeStream(of: PoolCommand.self)

    /// One hosted app as the supervisor holds it.
    struct Entry: Sendable {
        var record: AppRecord
        var hosted: HostedApp
        var manifest: AppManifest
        var pool: ServiceGroup?
        /// The service group that holds the app's push providers' connections.
        var push: ServiceGroup?
        /// The service group that runs the upkeep of the app's database (checkpoints, statistics).
        var checkpoints: ServiceGroup?
        /// Where the app's rate limits are kept when nodes share them; nil: in this node's memory.
        var sharedRateLimits: (any RateLimitStore)?
    }

    /// What to do with the service group of a worker pool or of an app's push providers.
    enum PoolCommand: Sendable {
        case run(ServiceGroup)
        case stop(ServiceGroup, after: Duration)
    }

    init(
        registry: AppRegistry, definitions: [AppDefinition], launcher: AppLauncher, configuration: ServerConfiguration,
        clock: any CloudletClock, metrics: CloudletMetrics, descriptors: AppDescriptors, logger: Logger,
        pollInterval: Duration = .milliseconds(500)
    ) {
        self.registry = registry
        self.descriptors = descriptors
        self.metrics = metrics
        self.launcher = launcher
        self.configuration = configuration
        self.serverOrigin = ServerOrigin(publicURL: configuration.publicURL, host: configuration.host, port: configuration.port)
        self.clock = clock
        self.logger = logger
        self.pollInterval = pollInterval
        self.definitions = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        identityTokens = IdentityTokenVerifier(endpoints: configuration.identityProviders, clock: clock, logger: logger)
    }

    /// The manifest of every app, by id.
    public var manifests: [AppManifest] {
        entries.withLock { $0.values.map(\.manifest) }.sorted { $0.appId < $1.appId }
    }

    /// The worker pools of the apps, as they are now.
    public var pools: [WorkerPool] {
        directory.all.compactMap { ($0.runtime.context.executor as? ProcessHookExecutor)?.pool }
    }

    /// Runs the pools and push providers, polls the registry, and applies its changes until graceful
    /// shutdown or cancellation.
    public func run() async throws {
        await reload()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await cancelWhenGracefulShutdown {
                    let signal = await self.registry.storage.changeSignal()
                    var seen = try? await self.registry.changeVersion()
                    while true {
                        // Another node's change wakes the signal; another process's is seen by polling.
                        if let signal { await signal.wait() } else { try await Task.sleep(for: self.pollInterval) }
                        try Task.checkCancellation()
                        let version = try? await self.registry.changeVersion()
                        if version != seen {
                            seen = version
                            await self.reload()
                        }
                    }
                }
                self.poolCommands.continuation.finish()
            }
            for await command in poolCommands.stream {
                switch command {
                case .run(let pool):
                    group.addTask {
                        do { try await pool.run() } catch { self.logger.error("a worker pool ended", metadata: ["error": "\(error)"]) }
                    }
                case .stop(let pool, let delay):
                    group.addTask {
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
                        await pool.triggerGracefulShutdown()
                    }
                }
            }
        }
    }

    /// Applies the registry as it is now; an app that cannot be (re)started keeps its previous
    /// version (or stays unknown), and the reason is logged and answered by app id.
    @discardableResult
    public func reload() async -> [String: any Error] {
        (try? await apply(strict: false)) ?? [:]
    }

    /// Applies the registry as it is now, throwing the first app's failure (at start).
    func loadAll() async throws {
        try await apply(strict: true)
    }

    @discardableResult
    private func apply(strict: Bool) async throws -> [String: any Error] {
        await gate.enter()
        do {
            let refused = try await applyRegistry(strict: strict)
            await gate.leave()
            return refused
        } catch {
            await gate.leave()
            throw error
        }
    }

    /// Starts `service` (an app's worker pool, push providers or database upkeep) under this service.
    func start(_ service: any Service) -> ServiceGroup {
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        poolCommands.continuation.yield(.run(group))
        return group
    }

    /// How long replaced push providers keep their connections for the sends already made through them.
    static let pushProviderDrainTime: Duration = .seconds(30)

    /// Stops the pool or push providers that `group` runs, after `delay` (at once when the server stops).
    func stop(_ group: ServiceGroup?, after delay: Duration = .zero) {
        guard let group else { return }
        poolCommands.continuation.yield(.stop(group, after: delay))
    }
}

/// Lets one task at a time through, in order of arrival.
actor SerialGate {
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard isBusy else {
            isBusy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { isBusy = false } else { waiting.removeFirst().resume() }
    }
}
