import NIOCore
import Synchronization

/// One LiveQuery connection's messages waiting to be written, in order and within bounds: at most
/// ``maximumMessages`` messages and ``maximumBytes`` bytes. A message past either bound ends the
/// outbox (``End/overflowed``): the client does not read as fast as its messages come, and is
/// disconnected rather than let hold the server's memory. Sending never waits, so the app's
/// events reach every other client whatever one of them does. The outbox tells its connection
/// when it ends (`onEnd`), as the writer may be held in a write the client never reads.
///
/// ```swift
/// let outbox = LiveQueryOutbox(maximumMessages: 1000, maximumBytes: 1 << 20) { end in if end != .finished { close() } }
/// outbox.send(LiveQueryMessage.error(.unknownOperation))
/// while let message = await outbox.next() { try await write(message) }
/// ```
package final class LiveQueryOutbox: Sendable {
    /// Why an outbox ended.
    package enum End: Sendable, Equatable {
        /// Its connection is done with it.
        case finished
        /// The server ends the connection (the app's hub disconnects its clients).
        case disconnected
        /// A message did not fit.
        case overflowed
    }

    private struct State {
        var queued = CircularBuffer<[UInt8]>()
        var bytes = 0
        /// The writer waiting for the next message.
        var waiter: CheckedContinuation<[UInt8]?, Never>?
        var end: End?
    }

    /// The most messages waiting at once.
    package let maximumMessages: Int
    /// The most bytes waiting at once.
    package let maximumBytes: Int
    private let state = Mutex(State())
    private let onEnd: @Sendable (End) -> Void

    /// An outbox of at most `maximumMessages` messages and `maximumBytes` bytes; `onEnd` is called
    /// once, with why, when it ends.
    package init(maximumMessages: Int, maximumBytes: Int, onEnd: @escaping @Sendable (End) -> Void = { _ in }) {
        self.maximumMessages = max(1, maximumMessages)
        self.maximumBytes = max(1, maximumBytes)
        self.onEnd = onEnd
    }

    /// Queues `message` for the writer; false if the outbox has ended, or ends now because the
    /// message does not fit (then what was queued is dropped, and ``next()`` answers nil).
    @discardableResult
    package func send(_ message: [UInt8]) -> Bool {
        let (accepted, overflowed, waiter) = state.withLock { state -> (Bool, Bool, CheckedContinuation<[UInt8]?, Never>?) in
            guard state.end == nil else { return (false, false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, false, waiter)
            }
            guard state.queued.count < maximumMessages, state.bytes + message.count <= maximumBytes else {
                state.end = .overflowed
                state.queued.removeAll()
                state.bytes = 0
                return (false, true, nil)
            }
            state.queued.append(message)
            state.bytes += message.count
            return (true, false, nil)
        }
        waiter?.resume(returning: message)
        if !accepted, overflowed { onEnd(.overflowed) }
        return accepted
    }

    /// The next message, waiting for one; nil once the outbox has ended (or the task is cancelled).
    package func next() async -> [UInt8]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> [UInt8]?? in
                    if let first = state.queued.popFirst() {
                        state.bytes -= first.count
                        return .some(first)
                    }
                    if state.end != nil { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the outbox for `end` (unless it has ended already): the writer's ``next()`` answers
    /// nil, and sends are refused.
    package func finish(_ end: End = .finished) {
        let (ended, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[UInt8]?, Never>?) in
            let ended = state.end == nil
            if ended { state.end = end }
            state.queued.removeAll()
            state.bytes = 0
            defer { state.waiter = nil }
            return (ended, state.waiter)
        }
        waiter?.resume(returning: nil)
        if ended { onEnd(end) }
    }

    /// Why the outbox ended; nil while it is open.
    package var end: End? {
        state.withLock { $0.end }
    }
}
