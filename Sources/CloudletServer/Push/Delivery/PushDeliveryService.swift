import Cloudlet
import Logging
import ServiceLifecycle
import Synchronization

/// Sends the push jobs of every app: one delivery loop per app (see ``AppPushDelivery``), started
/// for each app as it appears and ended when it goes, so that one app's fan-out of any size never
/// holds up another app's push. Stops on graceful shutdown; sends in flight then are resent by the
/// next run (their claims are released at its start).
public struct PushDeliveryService: Service {
    /// The apps served.
    public let apps: PushDeliveryApps
    /// Concurrency per app, lease, retries and fan-out pages.
    public let configuration: PushDeliveryConfiguration
    /// The clock deliveries are due and jobs scheduled by.
    public let clock: any CloudletClock
    /// Where failures to read or write the apps' databases are logged.
    public let logger: Logger

    public init(
        apps: PushDeliveryApps, configuration: PushDeliveryConfiguration = PushDeliveryConfiguration(), clock: any CloudletClock,
        logger: Logger = Logger(label: "cloudlet.push")
    ) {
        self.apps = apps
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                let running = RunningApps()
                while !Task.isCancelled {
                    for id in apps.ids() where running.start(id) {
                        var appLogger = logger
                        appLogger[metadataKey: "app"] = "\(id)"
                        let delivery = AppPushDelivery(appId: id, apps: apps, configuration: configuration, clock: clock, logger: appLogger)
                        group.addTask {
                            await delivery.run()
                            running.end(id)
                        }
                    }
                    try? await Task.sleep(for: configuration.pollInterval)
                }
            }
        }
    }
}

/// The apps whose delivery loop runs.
private final class RunningApps: Sendable {
    private let ids = Mutex<Set<String>>([])

    /// Marks `id` running; false if it already was.
    func start(_ id: String) -> Bool { ids.withLock { $0.insert(id).inserted } }

    func end(_ id: String) { _ = ids.withLock { $0.remove(id) } }
}
