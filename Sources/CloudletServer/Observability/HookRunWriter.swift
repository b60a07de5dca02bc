import Logging
import ServiceLifecycle

/// Writes the apps' buffered hook runs to their databases, and once more at graceful shutdown, so
/// that runs are kept without a write on any request's path. It polls nothing: it sleeps until an
/// app buffers a run (``AppDirectory/hookRunBuffered``), lets runs gather for `interval`, then
/// writes every app's buffer.
struct HookRunWriter: Service {
    /// The apps whose logs it writes (those served now, each time).
    let apps: AppDirectory
    /// How long runs gather after the first is buffered before they are written together.
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                await apps.hookRunBuffered.wait()
                try await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }

    private func flush() async {
        for log in apps.all.compactMap(\.runtime.context.hookRuns) {
            do {
                try await log.flush()
            } catch {
                logger.error("could not write hook runs", metadata: ["app": "\(log.appId)", "error": "\(error)"])
            }
        }
    }
}
