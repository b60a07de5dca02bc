/// What one or more connections saw during the measured window: the latency of every save
/// (a 201 answer) and how many requests failed (any other answer, or a connection lost).
struct LoadResult: Sendable {
    /// Latencies of the saves, in nanoseconds.
    private(set) var latencies: [UInt64] = []
    /// Answers other than 201, and connections lost before the end.
    var errors = 0

    /// An empty result with room for `capacity` latencies, so that recording does not allocate.
    init(capacity: Int) {
        latencies.reserveCapacity(capacity)
    }

    /// The results of several connections together, latencies sorted.
    init(merging results: [LoadResult]) {
        latencies = results.flatMap(\.latencies).sorted()
        errors = results.reduce(0) { $0 + $1.errors }
    }

    /// Counts one answered request.
    mutating func record(saved: Bool, nanoseconds: UInt64) {
        if saved { latencies.append(nanoseconds) } else { errors += 1 }
    }

    /// How many saves were answered.
    var saves: Int { latencies.count }

    /// The latency in milliseconds below which `fraction` of the saves fall (nearest rank).
    /// The latencies must be sorted, as ``init(merging:)`` leaves them.
    func percentileMilliseconds(_ fraction: Double) -> Double {
        guard !latencies.isEmpty else { return .nan }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up))
        return Double(latencies[min(max(rank, 1), latencies.count) - 1]) / 1e6
    }
}
