import Foundation

/// The source of time for deadlines and timestamps. The server uses the system's clock; the test
/// harness uses a manual clock, so that a test can move time forward and see a hook time out.
public protocol CloudletClock: Sendable {
    /// The current time.
    var now: Date { get }

    /// Runs `action` once at `deadline`, unless the returned alarm is cancelled first.
    func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm
}

/// An action scheduled on a ``CloudletClock``.
public protocol ClockAlarm: Sendable {
    /// Stops the action from running, if it has not run yet.
    func cancel()
}
