import NIOCore
import Synchronization

/// One LiveQuery connection's messages waiting to be written, in order and within bounds: at most
/// ``maximumMessages`` messages and ``maximumBytes`` bytes. A message past either bound ends the
/// outbox (``End/overflowed``): the client does not read as fast as its messages come, and is
/// disconnected rather than let hold the server's memory. Sending never waits, so the app's
/// events reach every other client whatever one of them does.
///
/// ```swift
/// let outbox = LiveQueryOutbox(maximumMessages: 1000, maximumBytes: 1 << 20)
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

    package init(maximumMessages: Int, maximumBytes: Int) {
        self.maximumMessages = max(1, maximumMessages)
        self.maximumBytes = max(1, maximumBytes)
    }

    /// Queues `message` for the writer; false if the outbox has ended, or ends now because the
    /// message does not fit (then what was queued is dropped, and ``next()`` answers nil).
    @discardableResult
    package func send(_ message: [UInt8]) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[UInt8]?, Never>?) in
            guard state.end == nil else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            guard state.queued.count < maximumMessages, state.bytes + message.count <= maximumBytes else {
                state.end = .overflowed
                state.queued.removeAll()
                state.bytes = 0
                return (false, nil)
            }
            state.queued.append(message)
            state.bytes += message.count
            return (true, nil)
        }
        waiter?.resume(returning: message)
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
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
            if state.end == nil { state.end = end }
            state.queued.removeAll()
            state.bytes = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Why the outbox ended; nil while it is open.
    package var end: End? {
        state.withLock { $0.end }
    }
}
