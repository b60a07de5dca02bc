import Foundation
import NIOCore
import NIOPosix

/// The wall clock inside a worker process, with alarms on a SwiftNIO event loop's timer.
struct WorkerClock: CloudletClock {
    let eventLoop: any EventLoop

    var now: Date { Date() }

    func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        let delay = max(0, deadline.timeIntervalSinceNow)
        return Alarm(scheduled: eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { action() })
    }

    private struct Alarm: ClockAlarm {
        let scheduled: Scheduled<Void>

        func cancel() { scheduled.cancel() }
    }
}
