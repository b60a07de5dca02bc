import CloudletRuntime
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the queued work of every hosted app: one ``AppWorkService`` per app, started as the app
/// appears and ended when it goes or its runtime is replaced (the new runtime gets a loop of its
/// own), so that one app's work never holds up another's. It sleeps until apps change. On graceful
/// shutdown it ends once every app's loop has (each finishes or hands back what it holds).
public struct WorkService: Service {
    /// The apps whose work runs.
    public let apps: AppDirectory
    public let settings: WorkSettings

    public init(apps: AppDirectory, settings: WorkSettings = WorkSettings()) {
        self.apps = apps
        self.settings = settings
    }

    public func run() async {
        let stopping = Atomic(false)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                let running = AppLoops()
                while !Task.isCancelled, !stopping.load(ordering: .acquiring) {
                    let served = apps.all
                    for app in served {
                        let runtime = app.runtime
                        guard running.start(app.id, runtime) else { continue }
                        let loop = AppWorkService(runtime: runtime, settings: settings) { [apps] in apps.app(app.id)?.runtime === runtime }
                        group.addTask {
                            await loop.run()
                            running.end(app.id, runtime)
                            apps.changes.signal()
                        }
                    }
                    // Loops of apps gone or replaced wake, to see that and end.
                    let current = Dictionary(served.map { ($0.id, $0.runtime) }, uniquingKeysWith: { _, last in last })
                    for runtime in running.all.filter({ current[$0.key] !== $0.value }).values {
                        runtime.storage.workQueued.signal()
                    }
                    await apps.changes.wait()
                }
            }
        } onGracefulShutdown: {
            // The app loops see the shutdown themselves, and end once their runs have.
            stopping.store(true, ordering: .releasing)
            apps.changes.signal()
        }
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
