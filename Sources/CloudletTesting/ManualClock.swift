import Cloudlet
import Foundation
import Synchronization

/// A clock that moves only when a test moves it. Deadlines scheduled on it fire during
/// ``advance(by:)``, so a test can run a hook past its time limit without waiting.
public final class ManualClock: CloudletClock {
    private struct Alarm {
        let id: Int
        let deadline: Date
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var alarms: [Alarm] = []
        var nextId = 0
        /// Tasks waiting for a number of alarms to be set.
        var parkWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the waiters whose number of alarms is now reached.
        mutating func reachedWaiters() -> [CheckedContinuation<Void, Never>] {
            let count = alarms.count
            defer { parkWaiters.removeAll { $0.count <= count } }
            return parkWaiters.filter { $0.count <= count }.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    /// A clock that reads `start` (by default 2026-01-01T00:00:00.000Z) until advanced.
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        let (id, due, reached) = state.withLock { state -> (Int, Bool, [CheckedContinuation<Void, Never>]) in
            state.nextId += 1
            guard deadline > state.now else { return (state.nextId, true, []) }
            state.alarms.append(Alarm(id: state.nextId, deadline: deadline, action: action))
            return (state.nextId, false, state.reachedWaiters())
        }
        for waiter in reached { waiter.resume() }
        if due { action() }
        return ManualAlarm(clock: self, id: id)
    }

    /// Moves time forward by `duration` and runs every alarm that falls due, earliest first.
    public func advance(by duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let due = state.withLock { state -> [Alarm] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.alarms.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.alarms.removeAll { $0.deadline <= now }
            return due
        }
        for alarm in due { alarm.action() }
    }

    /// How many alarms are waiting (for tests that must know a deadline has been set).
    public var pendingAlarms: Int { state.withLock { $0.alarms.count } }

    /// When the waiting alarms fire, earliest first (for tests that must know which deadline has been set).
    public var pendingDeadlines: [Date] { state.withLock { $0.alarms.map(\.deadline).sorted() } }

    /// Returns once at least `count` alarms are waiting: the code under test has done what it could
    /// and parked on this clock. A test that then checks that nothing happened checks it at a point
    /// where something could have, without sleeping in wall time.
    /// ```swift
    /// clock.advance(by: .seconds(29))
    /// await clock.parked()
    /// #expect(provider.sent.count == 1, "no retry before the provider's Retry-After")
    /// ```
    public func parked(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state -> Bool in
                guard state.alarms.count < count else { return true }
                state.parkWaiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    fileprivate func cancel(_ id: Int) {
        state.withLock { $0.alarms.removeAll { $0.id == id } }
    }
}

private struct ManualAlarm: ClockAlarm {
    let clock: ManualClock
    let id: Int

    func cancel() { clock.cancel(id) }
}
