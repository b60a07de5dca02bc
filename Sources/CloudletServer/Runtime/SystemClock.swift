import Cloudlet
import Foundation
import NIOCore
import NIOPosix

/// The system's wall clock, with alarms on a SwiftNIO event loop's timer (no task or thread per alarm).
public struct SystemClock: CloudletClock {
    private let eventLoop: any EventLoop

    /// A clock whose alarms fire on `eventLoop` (by default, one of NIO's shared loops).
    public init(eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) {
        self.eventLoop = eventLoop
    }

    public var now: Date { Date() }

    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        let delay = max(0, deadline.timeIntervalSinceNow)
        let scheduled = eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000_000))) { action() }
        return SystemAlarm(scheduled: scheduled)
    }
}

private struct SystemAlarm: ClockAlarm {
    let scheduled: Scheduled<Void>

    func cancel() { scheduled.cancel() }
}
