import Logging
import ServiceLifecycle

/// At start, runs the after hooks that a previous run committed but did not finish (it crashed or was
/// killed between the write and the end of the hook), for every app; at shutdown, removes the
/// outbox rows of the hooks that did finish.
struct OutboxReplayService: Service {
    let apps: AppDirectory
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
        try? await gracefulShutdown()
        for app in apps.all {
            do {
                try await app.runtime.storage.flushCompletedOutboxEvents()
            } catch {
                logger.error("could not flush completed after hooks", metadata: ["app": "\(app.id)", "error": "\(error)"])
            }
        }
    }
}
