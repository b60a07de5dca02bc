import Cloudlet
import Foundation
import Synchronization

/// Runs an operation against a deadline: whichever comes first, the operation's result or the
/// deadline, answers the caller. At the deadline the operation's task is cancelled and left behind,
/// so a hook that never checks for cancellation still cannot hold its caller past the limit.
package enum DeadlineRace {
    /// Thrown when the deadline comes first.
    package struct DeadlineExceeded: Error {
        package init() {}
    }

    /// Runs `operation` on another thread of the pool until `deadline`. (A call that only waits,
    /// such as one sent to a worker, keeps its deadline with a ``CallDeadline`` instead.)
    package static func run<Value: Sendable>(
        until deadline: Date, clock: any CloudletClock, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard clock.now < deadline else { throw DeadlineExceeded() }
        let race = Race<Value>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let body: @Sendable () async -> Void = {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let task = Task(operation: body)
            race.arm(
                clock.schedule(at: deadline) {
                    if race.finish(.failure(DeadlineExceeded())) { task.cancel() }
                })
        }
    }

    /// The one-shot meeting point of the operation and the alarm.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var alarm: (any ClockAlarm)?
            var finished = false
        }

        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<Value, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        func arm(_ alarm: any ClockAlarm) {
            let finished = state.withLock { state in
                if !state.finished { state.alarm = alarm }
                return state.finished
            }
            if finished { alarm.cancel() }
        }

        /// Resumes the caller with `result` if nothing else has; returns whether this call did.
        @discardableResult
        func finish(_ result: Result<Value, any Error>) -> Bool {
            let (continuation, alarm) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, (any ClockAlarm)?) in
                guard !state.finished else { return (nil, nil) }
                state.finished = true
                defer { state.continuation = nil; state.alarm = nil }
                return (state.continuation, state.alarm)
            }
            alarm?.cancel()
            continuation?.resume(with: result)
            return continuation != nil
        }
    }
}
