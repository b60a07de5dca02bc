/// The wait before another attempt of a delivery that the provider asked to retry without saying
/// when (`TooManyRequests`, a 5xx, a lost connection): exponential from ``first``, doubling with
/// each attempt up to ``maximum``, each wait drawn between half and all of that ("equal jitter"),
/// so that deliveries that failed together do not all come back together.
public struct PushBackoff: Sendable, Hashable {
    /// The wait after the first attempt, before jitter. Default 250 ms: most failures of one send
    /// are over a moment later, and with the delivery service's 12 attempts the waits still add up
    /// to 4 to 9 minutes (see ``PushDeliveryConfiguration/maximumAttempts``).
    public var first: Duration
    /// The longest wait, before jitter. Default 5 minutes.
    public var maximum: Duration

    public init(first: Duration = .milliseconds(250), maximum: Duration = .seconds(300)) {
        self.first = first
        self.maximum = max(maximum, first)
    }

    /// The longest wait after attempt `attempt` (1 for the first): `first` × 2^(attempt − 1), at most `maximum`.
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        let doublings = min(max(attempt - 1, 0), 40)
        let seconds = min(first.seconds * Double(1 << UInt64(doublings)), maximum.seconds)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The wait after attempt `attempt`: between half of ``ceiling(afterAttempt:)`` and all of it.
    public func delay<Generator: RandomNumberGenerator>(afterAttempt attempt: Int, using generator: inout Generator) -> Duration {
        ceiling(afterAttempt: attempt) * Double.random(in: 0.5...1, using: &generator)
    }

    /// The wait after attempt `attempt`, drawn from the system's generator.
    public func delay(afterAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }
}
