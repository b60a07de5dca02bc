import Cloudlet
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The system's wall clock. Alarms are kept in one table that a single repeating timer sweeps every
/// ``resolution``: arming and cancelling an alarm is a lock and a dictionary write, with no timer
/// scheduled and no thread woken per hook call (deadlines are seconds long; 10 ms of slack is fine).
public struct SystemClock: CloudletClock {
    /// How often due alarms are looked for.
    public static let resolution: TimeAmount = .milliseconds(10)

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
        var sweeping = false
    }

    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func add(deadline: Date, action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        let (id, startSweeping) = state.withLock { state -> (Int, Bool) in
            state.nextId += 1
            state.alarms[state.nextId] = (deadline, action)
            defer { state.sweeping = true }
            return (state.nextId, !state.sweeping)
        }
        if startSweeping {
            eventLoop.scheduleRepeatedTask(initialDelay: SystemClock.resolution, delay: SystemClock.resolution) { [self] task in
                if !sweep() { task.cancel() }
            }
        }
        return TableAlarm(table: self, id: id)
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.alarms.removeValue(forKey: id) }
    }

    /// Fires the alarms that are due; returns whether any are left (otherwise the timer stops).
    private func sweep() -> Bool {
        let now = Date()
        let (due, remaining) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
            let dueIds = state.alarms.filter { $0.value.deadline <= now }.map(\.key)
            let due = dueIds.compactMap { state.alarms.removeValue(forKey: $0)?.action }
            state.sweeping = !state.alarms.isEmpty
            return (due, state.sweeping)
        }
        for action in due { action() }
        return remaining
    }
}

private struct TableAlarm: ClockAlarm {
    let table: AlarmTable
    let id: Int

    func cancel() { table.remove(id) }
}
