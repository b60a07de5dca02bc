import CloudletRuntime
import Logging
import PostgresNIO
import Synchronization

/// What wakes one node when another writes: the database's `LISTEN`/`NOTIFY`, on one channel, each
/// notification naming a topic (work queued in an app's schema, say), and for some topics what
/// changed (`topic|detail`: the session that ended, say). A node holds one connection listening,
/// wakes the ``WakeSignal`` of the topic each notification names, and gives its detail to the
/// handlers of the topic.
///
/// Notifications only wake: the tables are the truth. A node that was not listening (its
/// connection lost, then made again) wakes every topic once listening again, so that what was
/// written meanwhile is read, and tells every handler that it may have missed notifications, when
/// it stops listening and again once it listens; a notification sent in a write's transaction
/// arrives at its commit, or never if it rolls back. Handlers hear one notification after the
/// other, in the order the transactions that sent them committed: the next waits for a handler
/// still at work.
package final class PostgresNotifications: Sendable {
    /// The channel every notification of Cloudlet's goes on.
    static let channel = "cloudlet"

    /// How long a node waits to be listening before it goes on without: its listener keeps trying,
    /// and wakes every topic once it listens.
    static let listenWait: Duration = .seconds(5)

    /// The most bytes of a notification's payload (PostgreSQL refuses 8000 and more).
    static let maximumPayloadBytes = 7999

    /// What a handler of a topic hears.
    package enum Notice: Sendable {
        /// A notification of the topic, with its detail if it has one.
        case notified(detail: String?)
        /// Notifications may have been missed: the node stopped listening, or listens again.
        case missed
    }

    /// Notifies every node listening of `topic`, with `detail` if given, when the transaction
    /// `connection` is in commits. `topic` holds no `|`; a payload past ``maximumPayloadBytes``
    /// throws, so callers send a shorter detail that says more (every user, not one).
    package static func notify(_ topic: String, detail: String? = nil, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(payload(topic, detail: detail)))", logger: logger)
    }

    /// The payload of a notification of `topic` with `detail`.
    package static func payload(_ topic: String, detail: String?) -> String {
        detail.map { topic + "|" + $0 } ?? topic
    }

    /// The topic and the detail of a notification's `payload`.
    static func parse(_ payload: String) -> (topic: String, detail: String?) {
        guard let bar = payload.firstIndex(of: "|") else { return (payload, nil) }
        return (String(payload[..<bar]), String(payload[payload.index(after: bar)...]))
    }

    private struct State {
        var signals: [String: WakeSignal] = [:]
        var handlers: [String: [@Sendable (Notice) async -> Void]] = [:]
        var isListening = false
        var listenerProcessId: Int?
        var waiting: [CheckedContinuation<Void, Never>] = []
        var listener: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// The server process of the connection this node listens on, while it listens.
    package var listenerProcessId: Int? {
        state.withLock { $0.isListening ? $0.listenerProcessId : nil }
    }

    /// The signal woken by notifications of `topic`.
    func signal(for topic: String) -> WakeSignal {
        state.withLock { state in
            if let signal = state.signals[topic] { return signal }
            let signal = WakeSignal()
            state.signals[topic] = signal
            return signal
        }
    }

    /// Calls `handler` with each notification of `topic` from now on, and with
    /// ``Notice/missed`` whenever notifications may have been missed; the next notification
    /// waits for it to return.
    func onNotification(of topic: String, _ handler: @escaping @Sendable (Notice) async -> Void) {
        state.withLock { $0.handlers[topic, default: []].append(handler) }
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
                    for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int.self) {
                        state.withLock { $0.listenerProcessId = pid }
                    }
                    try await connection.listen(on: Self.channel) { notifications in
                        await self.listening()
                        for try await notification in notifications { await self.deliver(notification.payload) }
                    }
                }
            } catch {
                if !Task.isCancelled { logger.warning("listening for notifications: \(String(reflecting: error)); again in 1 s") }
            }
            let handlers = state.withLock { state in
                state.isListening = false
                return state.handlers.values.joined()
            }
            for handler in handlers { await handler(.missed) }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Wakes the signal of the topic `payload` names, and gives its detail to the topic's handlers.
    private func deliver(_ payload: String) async {
        let (topic, detail) = Self.parse(payload)
        let (signal, handlers) = state.withLock { ($0.signals[topic], $0.handlers[topic] ?? []) }
        signal?.signal()
        for handler in handlers { await handler(.notified(detail: detail)) }
    }

    /// Lets every caller waiting to listen go on, listening or not.
    private func stopWaiting() {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Marks the node as listening: every topic wakes and every handler hears that it may have
    /// missed notifications, for what was written while no one listened; then what waited for it
    /// goes on.
    private func listening() async {
        let (waiting, signals, handlers) = state.withLock { state in
            state.isListening = true
            defer { state.waiting.removeAll() }
            return (state.waiting, Array(state.signals.values), Array(state.handlers.values.joined()))
        }
        for signal in signals { signal.signal() }
        for handler in handlers { await handler(.missed) }
        for continuation in waiting { continuation.resume() }
    }
}
