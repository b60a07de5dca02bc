import CloudletRuntime
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the queued work of every hosted app: one ``AppWorkService`` per app, started as the app
/// appears and ended when it goes or its runtime is replaced (the new runtime gets a loop of its
/// own), so that one app's work never holds up another's. Each app's push goes through the
/// providers the app has when it is sent. It sleeps until apps change, and every
/// ``WorkSettings/outsideWriteInterval`` looks at the apps' database files: an app written by
/// another process (`cloudlet push send`) has its loop woken, to claim what that process queued.
/// On graceful shutdown it ends once every app's loop has (each finishes or hands back what it holds).
public struct WorkService: Service {
    /// The apps whose work runs.
    public let apps: AppDirectory
    public let settings: WorkSettings
    /// How the apps' push deliveries are worked through.
    public let push: PushDeliveryConfiguration

    public init(
        apps: AppDirectory, settings: WorkSettings = WorkSettings(), push: PushDeliveryConfiguration = PushDeliveryConfiguration()
    ) {
        self.apps = apps
        self.settings = settings
        self.push = push
    }

    public func run() async {
        let stopping = Atomic(false)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                let running = AppLoops()
                var writtenAt: [String: Date] = [:]
                while !Task.isCancelled, !stopping.load(ordering: .acquiring) {
                    let served = apps.all
                    for app in served {
                        let runtime = app.runtime
                        guard running.start(app.id, runtime) else { continue }
                        let providers: @Sendable () -> PushProviders = { [apps] in
                            apps.app(app.id)?.pushProviders ?? PushProviders(fallback: nil)
                        }
                        let loop = AppWorkService(
                            runtime: runtime, settings: settings, push: PushDeliverySetup(providers: providers, configuration: push)
                        ) { [apps] in apps.app(app.id)?.runtime === runtime }
                        loop.takeHandedWork()
                        group.addTask {
                            await loop.run()
                            running.end(app.id, runtime)
                            apps.changes.signal()
                        }
                    }
                    // Loops of apps gone or replaced wake, to see that and end.
                    let current = Dictionary(served.map { ($0.id, $0.runtime) }, uniquingKeysWith: { _, last in last })
                    for runtime in running.all.filter({ current[$0.key] !== $0.value }).values {
                        runtime.context.stores.work.workQueued.signal()
                    }
                    writtenAt = wakeWrittenElsewhere(served, since: writtenAt)
                    await apps.changes.wait(until: Date().addingTimeInterval(settings.outsideWriteInterval.seconds), on: SystemClock())
                }
            }
        } onGracefulShutdown: {
            // The app loops see the shutdown themselves, and end once their runs have.
            stopping.store(true, ordering: .releasing)
            apps.changes.signal()
        }
    }
}

extension WorkService {
    /// Wakes the loops of the apps in `served` whose database was written since `writtenAt` (by
    /// app id, as the last look found it); answers what this look found.
    private func wakeWrittenElsewhere(_ served: [HostedApp], since writtenAt: [String: Date]) -> [String: Date] {
        var seen: [String: Date] = [:]
        for app in served {
            let written = app.runtime.context.stores.work.lastWrittenAt()
            if let known = writtenAt[app.id], written != known { app.runtime.context.stores.work.workQueued.signal() }
            seen[app.id] = written
        }
        return seen
    }
}

/// The runtime whose loop runs, by app id.
private final class AppLoops: Sendable {
    private let loops = Mutex<[String: AppRuntime]>([:])

    var all: [String: AppRuntime] { loops.withLock { $0 } }

    /// Marks a loop of `runtime` running for `id`; false if a loop for `id` runs already.
    func start(_ id: String, _ runtime: AppRuntime) -> Bool {
        loops.withLock { loops in
            guard loops[id] == nil else { return false }
            loops[id] = runtime
            return true
        }
    }

    /// The loop of `runtime` for `id` ended.
    func end(_ id: String, _ runtime: AppRuntime) {
        loops.withLock { if $0[id] === runtime { $0[id] = nil } }
    }
}
