import CloudletRuntime
import Foundation

/// How long to wait before restarting a worker slot: at once after its first crash, then by
/// `backoff` while crashes follow one another. A worker that answers resets it.
struct RestartBackoff: Sendable, Equatable {
    let backoff: Backoff
    private(set) var consecutiveCrashes = 0

    init(base: Duration, maximum: Duration) {
        backoff = Backoff(first: base, maximum: maximum)
    }

    /// The delay before the next restart, counting this crash.
    mutating func nextDelay() -> Duration {
        defer { consecutiveCrashes += 1 }
        return consecutiveCrashes == 0 ? .zero : backoff.ceiling(afterAttempt: consecutiveCrashes)
    }

    /// The worker served a call: the next crash restarts at once again.
    mutating func reset() {
        consecutiveCrashes = 0
    }
}

/// The restarts one pool may make, whatever ended its workers: `burst` at once, then one every
/// `interval` (the generic cell rate algorithm). An app whose hooks end their worker on every call
/// (hanging, trapping, allocating or printing until killed) restarts its workers at this pace
/// and its calls wait for them, instead of spending the host's cores on starting processes.
struct RestartBudget: Sendable, Equatable {
    let burst: Int
    let interval: Duration
    /// When the budget is whole again; nil while it is.
    private var wholeAt: Date?

    init(burst: Int, interval: Duration) {
        self.burst = max(1, burst)
        self.interval = interval
    }

    /// The earliest a restart wanted at `now` may start; that restart is counted.
    mutating func nextStart(wantedAt now: Date) -> Date {
        let whole = max(wholeAt ?? now, now)
        let start = max(now, whole.addingTimeInterval(-interval.seconds * Double(burst - 1)))
        wholeAt = whole.addingTimeInterval(interval.seconds)
        return start
    }
}
