import Cloudlet
import Foundation
import Synchronization

extension CloudletClock {
    /// Waits until the clock reads `date`, or the task is cancelled: a test moving a manual clock
    /// past `date` ends the wait, as the system's clock reaching it does.
    func sleep(until date: Date) async {
        let wake = Wake()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wake.hold(continuation)
                wake.arm(schedule(at: date) { wake.fire() })
            }
        } onCancel: {
            wake.fire()
        }
    }
}

/// The one-shot meeting point of a sleeping task, its alarm and its cancellation.
private final class Wake: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var alarm: (any ClockAlarm)?
        var fired = false
    }

    private let state = Mutex(State())

    func hold(_ continuation: CheckedContinuation<Void, Never>) {
        let fired = state.withLock { state in
            if !state.fired { state.continuation = continuation }
            return state.fired
        }
        if fired { continuation.resume() }
    }

    func arm(_ alarm: any ClockAlarm) {
        let fired = state.withLock { state in
            if !state.fired { state.alarm = alarm }
            return state.fired
        }
        if fired { alarm.cancel() }
    }

    func fire() {
        let (continuation, alarm) = state.withLock { state -> (CheckedContinuation<Void, Never>?, (any ClockAlarm)?) in
            state.fired = true
            defer { state.continuation = nil; state.alarm = nil }
            return (state.continuation, state.alarm)
        }
        alarm?.cancel()
        continuation?.resume()
    }
}
