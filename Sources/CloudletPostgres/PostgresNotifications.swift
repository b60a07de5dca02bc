import CloudletRuntime
import Logging
import PostgresNIO
import Synchronization

/// What wakes one node when another writes: the database's `LISTEN`/`NOTIFY`, on one channel, each
/// notification naming a topic (work queued in an app's schema, say). A node holds one connection
/// listening, and wakes the ``WakeSignal`` of the topic each notification names.
///
/// Notifications only wake: the tables are the truth. A node that was not listening (its
/// connection lost, then made again) wakes every topic once listening again, so that what was
/// written meanwhile is read; a notification sent in a write's transaction arrives at its commit,
/// or never if it rolls back.
final class PostgresNotifications: Sendable {
    /// The channel every notification of Cloudlet's goes on.
    static let channel = "cloudlet"

    private struct State {
        var signals: [String: WakeSignal] = [:]
        var isListening = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var listener: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// The signal woken by notifications of `topic`.
    func signal(for topic: String) -> WakeSignal {
        state.withLock { state in
            if let signal = state.signals[topic] { return signal }
            let signal = WakeSignal()
            state.signals[topic] = signal
            return signal
        }
    }

    /// Starts listening on one of `client`'s connections, if not started yet, and returns once
    /// notifications arrive.
    func listen(with client: PostgresClient, logger: Logger) async {
        state.withLock { state in
            guard state.listener == nil else { return }
            state.listener = Task { await self.keepListening(client, logger: logger) }
        }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if !state.isListening { state.waiting.append(continuation) }
                return state.isListening
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops listening.
    func stop() {
        state.withLock { $0.listener }?.cancel()
    }

    /// Listens until cancelled, making the connection again a second after it is lost.
    private func keepListening(_ client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        self.listening()
                        for try await notification in notifications {
                            self.state.withLock { $0.signals[notification.payload] }?.signal()
                        }
                    }
                }
            } catch {
                if !Task.isCancelled { logger.warning("listening for notifications: \(error); again in 1 s") }
            }
            state.withLock { $0.isListening = false }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Marks the node as listening: what waited for it goes on, and every topic wakes, for what
    /// was written while no one listened.
    private func listening() {
        let (waiting, signals) = state.withLock { state in
            state.isListening = true
            defer { state.waiting.removeAll() }
            return (state.waiting, Array(state.signals.values))
        }
        for continuation in waiting { continuation.resume() }
        for signal in signals { signal.signal() }
    }
}
