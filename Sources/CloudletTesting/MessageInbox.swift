import Synchronization

/// Messages received and not read yet, in order, for a test to wait for one at a time: what a
/// LiveQuery test client (a socket, or a harness subscription) has received.
package final class MessageInbox<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        var waiter: CheckedContinuation<Message?, Never>?
        var closed = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Adds `message`, handing it to a waiting reader if there is one.
    package func put(_ message: Message) {
        let waiter = state.withLock { state -> CheckedContinuation<Message?, Never>? in
            guard let waiter = state.waiter else {
                state.messages.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    /// Ends the inbox: readers get what is left, then nil.
    package func close() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Whether the inbox is closed and empty.
    package var isClosed: Bool { state.withLock { $0.closed && $0.messages.isEmpty } }

    private func next() async -> Message? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Message?? in
                    if !state.messages.isEmpty { return state.messages.removeFirst() }
                    if state.closed || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The next message, or nil if none comes within `timeout`; a message that arrives as the wait
    /// ends is kept for the next call.
    package func next(within timeout: Duration) async -> Message? {
        await withTaskGroup(of: Message?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var first = await group.next() ?? nil
            group.cancelAll()
            for await late in group {
                guard let late else { continue }
                if first == nil { first = late } else { state.withLock { $0.messages.insert(late, at: 0) } }
            }
            return first
        }
    }
}
