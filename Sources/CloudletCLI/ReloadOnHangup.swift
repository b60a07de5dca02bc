import CloudletServer
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads every app's workers when the server receives SIGHUP: after replacing an app's hook
/// executable, `kill -HUP <server pid>` starts new workers and drains the old ones without failing a call.
struct ReloadOnHangup: Service {
    /// The pools as they are when the signal arrives.
    let pools: @Sendable () -> [WorkerPool]
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                logger.info("SIGHUP: reloading hook workers")
                for pool in pools() { pool.reload() }
            }
        }
    }
}
