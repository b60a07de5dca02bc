import Cloudlet
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The system's wall clock. Alarms are kept in one table with one timer, set for the earliest
/// alarm's deadline: arming and cancelling an alarm is a lock and a dictionary write, with no timer
/// scheduled and no thread woken per hook call. Calls arm their alarms in deadline order, mostly,
/// and cancel them long before they are due, so the timer is moved only for an alarm due sooner
/// than it, and fires about once a time limit under load; then it fires what is due and is set
/// again for the earliest left.
public struct SystemClock: CloudletClock {
    private let alarms: AlarmTable

    /// A clock whose alarms fire on `eventLoop` (by default, one of NIO's shared loops).
    public init(eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) {
        alarms = AlarmTable(eventLoop: eventLoop)
    }

    public var now: Date { Date() }

    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        alarms.add(deadline: deadline, action: action)
    }
}

/// The pending alarms of a ``SystemClock`` and the timer that fires them.
private final class AlarmTable: Sendable {
    private struct State {
        var alarms: [Int: (deadline: Date, action: @Sendable () -> Void)] = [:]
        var nextId = 0
        /// The timer, and the deadline it is set for.
        var timer: (deadline: Date, task: Scheduled<Void>)?
    }

    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func add(deadline: Date, action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        let id = state.withLock { state in
            state.nextId += 1
            state.alarms[state.nextId] = (deadline, action)
            if let timer = state.timer, timer.deadline <= deadline { return state.nextId }
            state.timer?.task.cancel()
            state.timer = (deadline, setTimer(for: deadline))
            return state.nextId
        }
        return TableAlarm(table: self, id: id)
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.alarms.removeValue(forKey: id) }
    }

    /// A timer that fires at `deadline` (at once, if it has passed), or in a day if that is sooner:
    /// it then finds nothing due and is set again.
    private func setTimer(for deadline: Date) -> Scheduled<Void> {
        let seconds = min(max(deadline.timeIntervalSinceNow, 0), 86_400)
        return eventLoop.scheduleTask(in: .nanoseconds(Int64((seconds * 1_000_000_000).rounded(.up)))) { [self] in fire() }
    }

    /// Fires the alarms that are due and sets the timer for the earliest left, if any is. (A timer
    /// moved while it fired may fire once more: it finds what is due, and sets the one timer.)
    private func fire() {
        let now = Date()
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var dueIds: [Int] = []
            var earliest: Date?
            for (id, alarm) in state.alarms {
                if alarm.deadline <= now {
                    dueIds.append(id)
                } else if earliest.map({ alarm.deadline < $0 }) ?? true {
                    earliest = alarm.deadline
                }
            }
            state.timer?.task.cancel()
            state.timer = earliest.map { ($0, setTimer(for: $0)) }
            return dueIds.compactMap { state.alarms.removeValue(forKey: $0)?.action }
        }
        for action in due { action() }
    }
}

private struct TableAlarm: ClockAlarm {
    let table: AlarmTable
    let id: Int

    func cancel() { table.remove(id) }
}
