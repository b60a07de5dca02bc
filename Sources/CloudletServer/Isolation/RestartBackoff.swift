/// How long to wait before restarting a worker slot: at once after its first crash, then doubling
/// from `base` up to `maximum` while crashes follow one another. A worker that answers resets it.
struct RestartBackoff: Sendable, Equatable {
    let base: Duration
    let maximum: Duration
    private(set) var consecutiveCrashes = 0

    init(base: Duration, maximum: Duration) {
        self.base = base
        self.maximum = maximum
    }

    /// The delay before the next restart, counting this crash.
    mutating func nextDelay() -> Duration {
        defer { consecutiveCrashes += 1 }
        guard consecutiveCrashes > 0 else { return .zero }
        let factor = 1 << min(consecutiveCrashes - 1, 20)
        return min(base * factor, maximum)
    }

    /// The worker served a call: the next crash restarts at once again.
    mutating func reset() {
        consecutiveCrashes = 0
    }
}
