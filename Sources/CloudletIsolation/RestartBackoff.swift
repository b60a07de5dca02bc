import CloudletRuntime
import Foundation

/// How long to wait before restarting a worker slot: at once after its first crash, then by
/// `backoff` while crashes follow one another; and whether its next worker starts on probation
/// (in its app's idle CPU group until its hello): only once its workers have ended, crashed or
/// killed, twice in a row. A first end restarts like a fresh start, so that an app that lost one
/// worker gets it back even while the host's cores are busy. A worker that answers resets it.
struct RestartBackoff: Sendable, Equatable {
    let backoff: Backoff
    private(set) var consecutiveCrashes = 0
    /// The slot's workers that ended (crashed or killed) with no call answered between.
    private(set) var endsInARow = 0

    init(base: Duration, maximum: Duration) {
        backoff = Backoff(first: base, maximum: maximum)
    }

    /// The delay before the next restart, counting this crash.
    mutating func nextDelay() -> Duration {
        defer { consecutiveCrashes += 1 }
        endsInARow += 1
        return consecutiveCrashes == 0 ? .zero : backoff.ceiling(afterAttempt: consecutiveCrashes)
    }

    /// The pool killed the slot's worker (it overran, hung, or missed its start): no backoff, but
    /// the end counts towards probation.
    mutating func workerWasKilled() {
        endsInARow += 1
    }

    /// Whether the slot's next worker starts on probation: its workers keep ending.
    var startsNextWorkerOnProbation: Bool { endsInARow >= 2 }

    /// The worker served a call (or a reload replaced it): the next crash restarts at once, and
    /// off probation, again.
    mutating func reset() {
        consecutiveCrashes = 0
        endsInARow = 0
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
