import Cloudlet
import Foundation
import Synchronization

/// The deadline of one hook call sent to a worker. The call only waits — for a slot in its app's
/// bulkhead, for room on a worker, for the worker's answer — and each wait enters the deadline
/// while it lasts: when the deadline passes, the wait under way ends at once with
/// ``DeadlineRace/DeadlineExceeded``, whether or not what it waited for ever comes. Unlike
/// ``DeadlineRace``, it needs no task of its own, so the call's answer wakes no extra thread.
///
/// ```swift
/// let deadline = CallDeadline(until: date, clock: clock)
/// defer { deadline.end() }
/// try await CallDeadline.$current.withValue(deadline) { try await executor.run(…) }
/// ```
package final class CallDeadline: Sendable {
    /// The deadline of the hook call the current task makes, if it makes one to a worker.
    @TaskLocal package static var current: CallDeadline?

    private struct State {
        var passed = false
        /// How to end the wait under way.
        var endWait: (@Sendable () -> Void)?
        var alarm: (any ClockAlarm)?
    }

    private let state = Mutex(State())

    /// A deadline at `date` on `clock`, passed already if `date` is.
    package init(until date: Date, clock: any CloudletClock) {
        guard clock.now < date else {
            state.withLock { $0.passed = true }
            return
        }
        let alarm = clock.schedule(at: date) { [weak self] in self?.pass() }
        let passed = state.withLock { state in
            if !state.passed { state.alarm = alarm }
            return state.passed
        }
        if passed { alarm.cancel() }
    }

    /// Starts a wait that `endWait` ends when the deadline passes, or at once if it has passed.
    /// `endWait` must do nothing for a wait that has ended already.
    package func enter(_ endWait: @escaping @Sendable () -> Void) {
        let passed = state.withLock { state in
            if !state.passed { state.endWait = endWait }
            return state.passed
        }
        if passed { endWait() }
    }

    /// The wait under way is over.
    package func leave() {
        state.withLock { $0.endWait = nil }
    }

    /// The call is over: its alarm is no longer needed.
    package func end() {
        state.withLock { $0.alarm }?.cancel()
    }

    private func pass() {
        let endWait = state.withLock { state in
            state.passed = true
            defer { state.endWait = nil }
            return state.endWait
        }
        endWait?()
    }
}
