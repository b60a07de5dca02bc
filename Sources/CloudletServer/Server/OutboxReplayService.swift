import Cloudlet
import Foundation
import Logging
import ServiceLifecycle

/// At start, runs the after hooks that a previous run committed but did not finish (it crashed or was
/// killed between the write and the end of the hook), for every app; then, until shutdown, retries
/// the after hooks whose worker ended under them, as their backoff comes due. It polls nothing: it
/// sleeps until the earliest retry it knows of falls due or an app queues a new one
/// (``AppDirectory/afterHookRetryQueued``).
struct OutboxReplayService: Service {
    let apps: AppDirectory
    /// The clock retries fall due on.
    let clock: any CloudletClock
    let logger: Logger

    func run() async throws {
        for app in apps.all {
            do {
                let replayed = try await app.runtime.replayPendingAfterHooks()
                if replayed > 0 { logger.info("replayed pending after hooks", metadata: ["app": "\(app.id)", "count": "\(replayed)"]) }
            } catch {
                logger.error("could not replay after hooks", metadata: ["app": "\(app.id)", "error": "\(error)"])
            }
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var next: Date?
                for app in apps.all {
                    await app.runtime.retryDueAfterHooks()
                    if let due = app.runtime.nextAfterHookRetry { next = min(next ?? due, due) }
                }
                await apps.afterHookRetryQueued.wait(until: next, on: clock)
            }
        }
    }
}
