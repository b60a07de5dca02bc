import Logging
import ServiceLifecycle

/// Writes every app's buffered hook runs to its database every `interval`, and once more at
/// graceful shutdown, so that runs are kept without a write on any request's path.
struct HookRunWriter: Service {
    /// The apps whose logs it writes (those served now, each time).
    let apps: AppDirectory
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }

    private func flush() async {
        for log in apps.all.compactMap(\.runtime.hookRuns) {
            do {
                try await log.flush()
            } catch {
                logger.error("could not write hook runs", metadata: ["app": "\(log.appId)", "error": "\(error)"])
            }
        }
    }
}
