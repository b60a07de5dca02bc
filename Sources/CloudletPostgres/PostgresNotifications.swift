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
package final class PostgresNotifications: Sendable {
    /// The channel every notification of Cloudlet's goes on.
    static let channel = "cloudlet"

    /// How long a node waits to be listening before it goes on without: its listener keeps trying,
    /// and wakes every topic once it listens.
    static let listenWait: Duration = .seconds(5)

    /// Notifies every node listening of `topic`, when the transaction `connection` is in commits.
    package static func notify(_ topic: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(topic))", logger: logger)
    }

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
    /// notifications arrive, or after ``listenWait`` if the database cannot be reached.
    func listen(with client: PostgresClient, logger: Logger) async {
        state.withLock { state in
            guard state.listener == nil else { return }
            state.listener = Task { await self.keepListening(client, logger: logger) }
        }
        let giveUp = Task {
            try await Task.sleep(for: Self.listenWait)
            self.stopWaiting()
        }
        defer { giveUp.cancel() }
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

    /// Lets every caller waiting to listen go on, listening or not.
    private func stopWaiting() {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
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
