import Foundation

/// How long to wait before trying again after a failure: exponential from ``first``, doubling with
/// each attempt up to ``maximum``, each wait optionally drawn between half and all of that ("equal
/// jitter", so that things that failed together do not all come back together).
///
/// Every retry of the server waits by one: queued work (after hooks, push deliveries, job runs),
/// worker restarts and provider sends.
///
/// ```swift
/// let backoff = Backoff(first: .seconds(1), maximum: .seconds(300))
/// backoff.ceiling(afterAttempt: 3) // 4 s
/// ```
public struct Backoff: Sendable, Hashable {
    /// The wait after the first attempt, before jitter.
    public var first: Duration
    /// The longest wait, before jitter.
    public var maximum: Duration
    /// Whether each wait is drawn between half and all of its ceiling.
    public var isJittered: Bool

    /// A backoff from `first` up to `maximum` (at least `first`), jittered when `isJittered`.
    public init(first: Duration, maximum: Duration, isJittered: Bool = false) {
        self.first = first
        self.maximum = max(maximum, first)
        self.isJittered = isJittered
    }

    /// The longest wait after attempt `attempt` (1 for the first): `first` × 2^(attempt − 1), at most `maximum`.
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        let doublings = min(max(attempt - 1, 0), 40)
        let seconds = min(first.seconds * Double(1 << UInt64(doublings)), maximum.seconds)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The wait after attempt `attempt`: its ceiling, or with jitter between half of it and all of it.
    public func delay<Generator: RandomNumberGenerator>(afterAttempt attempt: Int, using generator: inout Generator) -> Duration {
        let ceiling = ceiling(afterAttempt: attempt)
        return isJittered ? ceiling * Double.random(in: 0.5...1, using: &generator) : ceiling
    }

    /// The wait after attempt `attempt`, drawn from the system's generator.
    public func delay(afterAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }

    /// When attempt `attempt + 1` is due, if attempt `attempt` failed at `now`.
    public func due(afterAttempt attempt: Int, failedAt now: Date) -> Date {
        now.addingTimeInterval(delay(afterAttempt: attempt).seconds)
    }
}
