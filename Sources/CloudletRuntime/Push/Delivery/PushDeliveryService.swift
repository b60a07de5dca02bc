import Cloudlet
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Sends the push jobs of every app: one delivery loop per app (see ``AppPushDelivery``), started
/// for each app as it appears and ended when it goes, so that one app's fan-out of any size never
/// holds up another app's push. Stops on graceful shutdown; sends in flight then are resent by the
/// next run (their claims are released at its start).
///
/// Idle apps cost nothing but a look at their database files' modification times every
/// ``PushDeliveryConfiguration/outsideWriteInterval``: an app's loop sleeps until a job is recorded
/// in this process, its files show a write by another process, or its work falls due; this
/// service sleeps until apps change.
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
        logger: Logger
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
                var writtenAt: [String: Date] = [:]
                while !Task.isCancelled {
                    let served = apps.ids().compactMap(apps.app)
                    for app in served where running.start(app.id, waking: app.storage.pushJobRecorded) {
                        var appLogger = logger
                        appLogger[metadataKey: "app"] = "\(app.id)"
                        let delivery = AppPushDelivery(appId: app.id, apps: apps, configuration: configuration, clock: clock, logger: appLogger)
                        group.addTask {
                            await delivery.run()
                            running.end(app.id)
                        }
                    }
                    // Loops of apps gone or replaced wake, to end or to take up the new storage.
                    running.wakeStale(served)
                    var seen: [String: Date] = [:]
                    for app in served {
                        let written = app.storage.lastWrittenAt()
                        if let known = writtenAt[app.id], written != known { app.storage.pushJobRecorded.signal() }
                        seen[app.id] = written
                    }
                    writtenAt = seen
                    await clock.sleep(until: clock.now.addingTimeInterval(configuration.outsideWriteInterval.seconds), orUntil: apps.changes)
                }
            }
        }
    }
}

/// The apps whose delivery loop runs, each with the signal its loop sleeps on.
private final class RunningApps: Sendable {
    private let loops = Mutex<[String: WakeSignal]>([:])

    /// Marks `id` running, its loop woken by `signal`; false if it already was.
    func start(_ id: String, waking signal: WakeSignal) -> Bool {
        loops.withLock { loops in
            guard loops[id] == nil else { return false }
            loops[id] = signal
            return true
        }
    }

    func end(_ id: String) { _ = loops.withLock { $0.removeValue(forKey: id) } }

    /// Wakes the loops of apps not in `served`, or served now with another storage.
    func wakeStale(_ served: [PushDeliveryApp]) {
        let current = Dictionary(served.map { ($0.id, $0.storage.pushJobRecorded) }, uniquingKeysWith: { _, last in last })
        let stale = loops.withLock { loops in
            loops.compactMap { id, signal -> (String, WakeSignal)? in
                if let now = current[id], now === signal { return nil }
                return (id, signal)
            }
        }
        for (id, signal) in stale {
            signal.signal()
            // The loop now sleeps on the new storage's signal, if the app is still served.
            if let now = current[id] { loops.withLock { $0[id] = now } }
        }
    }
}
