import Logging
import ServiceLifecycle

/// At start, runs the after hooks that a previous run committed but did not finish (it crashed or was
/// killed between the write and the end of the hook), for every app; then, until shutdown, retries
/// the after hooks whose worker ended under them, as their backoff comes due.
struct OutboxReplayService: Service {
    let apps: AppDirectory
    let logger: Logger
    /// How often due retries are looked for.
    var retryInterval: Duration = .milliseconds(250)

    func run() async throws {
        for app in apps.all {
            do {
                let replayed = try await app.runtime.replayPendingAfterHooks()
                if replayed > 0 { logger.info("replayed pending after hooks", metadata: ["app": "\(app.id)", "count": "\(replayed)"]) }
            } catch {
                logger.error("could not replay after hooks", metadata: ["app": "\(app.id)", "error": "\(error)"])
            }
        }
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: retryInterval)
                for app in apps.all { await app.runtime.retryDueAfterHooks() }
            }
        }
    }
}
