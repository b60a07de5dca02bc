import Cloudlet
import Foundation
import Synchronization

extension CloudletClock {
    /// Waits until the clock reads `date`, or the task is cancelled: a test moving a manual clock
    /// past `date` ends the wait, as the system's clock reaching it does.
    package func sleep(until date: Date) async {
        await Wake.sleep(until: date, on: self, orUntil: [])
    }

    /// Waits until the clock reads `date`, until `signal` (if any) is signalled, or until the task
    /// is cancelled.
    package func sleep(until date: Date, orUntil signal: WakeSignal?) async {
        await Wake.sleep(until: date, on: self, orUntil: signal.map { [$0] } ?? [])
    }
}

/// Wakes a loop that sleeps until work is queued for it: the code that queues the work calls
/// ``signal()`` (from any thread), and the loop sleeps in ``wait(until:on:)`` between its looks
/// at the work. A signal while no loop sleeps is kept for the next sleep, so work queued between a
/// loop's last look and its sleep is never missed; several signals before a sleep wake it once.
public final class WakeSignal: Sendable {
    private struct State {
        var isPending = false
        var sleepers: [ObjectIdentifier: Wake] = [:]
        var count = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times the signal was given so far: a loop that remembers it can tell, after a
    /// wake, whether this signal was given since (when it sleeps on others too).
    public var count: Int { state.withLock { $0.count } }

    /// Wakes every loop sleeping on this signal, or the next one to sleep if none is.
    public func signal() {
        let sleepers = state.withLock { state -> [Wake] in
            state.count &+= 1
            guard !state.sleepers.isEmpty else {
                state.isPending = true
                return []
            }
            defer { state.sleepers.removeAll() }
            return Array(state.sleepers.values)
        }
        for wake in sleepers { wake.fire() }
    }

    /// Adds `wake` to the sleepers, unless a signal is pending: then takes it and answers false.
    fileprivate func add(_ wake: Wake) -> Bool {
        state.withLock { state in
            if state.isPending {
                state.isPending = false
                return false
            }
            state.sleepers[ObjectIdentifier(wake)] = wake
            return true
        }
    }

    fileprivate func remove(_ wake: Wake) {
        _ = state.withLock { $0.sleepers.removeValue(forKey: ObjectIdentifier(wake)) }
    }

    /// Waits until signalled (at once if signalled since the last wait), until `clock` reads
    /// `date` when both are given, or until the task is cancelled.
    public func wait(until date: Date? = nil, on clock: (any CloudletClock)? = nil) async {
        await Wake.sleep(until: date, on: clock, orUntil: [self])
    }

    /// Waits as ``wait(until:on:)`` does, until this signal or any of `others` is signalled.
    public func wait(orFor others: [WakeSignal], until date: Date? = nil, on clock: (any CloudletClock)? = nil) async {
        await Wake.sleep(until: date, on: clock, orUntil: [self] + others)
    }
}

/// The one-shot meeting point of a sleeping task, its alarm, its signal and its cancellation.
private final class Wake: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var alarm: (any ClockAlarm)?
        var fired = false
    }

    private let state = Mutex(State())

    /// Waits until `clock` reads `date` (when both are given), until one of `signals` is
    /// signalled, or until the task is cancelled, whichever comes first.
    static func sleep(until date: Date?, on clock: (any CloudletClock)?, orUntil signals: [WakeSignal]) async {
        let wake = Wake()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wake.hold(continuation)
                for signal in signals where !signal.add(wake) { wake.fire() }
                if let date, let clock { wake.arm(clock.schedule(at: date) { wake.fire() }) }
            }
        } onCancel: {
            wake.fire()
        }
        for signal in signals { signal.remove(wake) }
    }

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
