/// What one or more connections saw during the measured window: the latency of every accepted
/// request (a 2xx answer), how many were refused by a rate limit (429), how many failed otherwise
/// (any other answer, or a connection lost), and the accepted ones second by second.
public struct LoadResult: Sendable {
    /// Latencies of the accepted requests, in nanoseconds.
    public private(set) var latencies: [UInt64] = []
    /// Answers 429.
    public var refused = 0
    /// Other answers, and connections lost before the end.
    public var errors = 0
    /// Accepted requests in each second of the window.
    public private(set) var acceptedPerSecond: [Int]
    /// The machine's CPU counts at the window's start and end, when the generator took them.
    public var machine: (start: MachineCPU, end: MachineCPU)?
    /// The CPU seconds the server's processes (the server and its workers) had used at the window's
    /// start and end, when the server runs in a process of its own.
    public var server: (start: Double, end: Double)?

    /// An empty result for a window of `seconds`, with room for `capacity` latencies, so that
    /// recording does not allocate.
    public init(capacity: Int, seconds: Double) {
        latencies.reserveCapacity(capacity)
        acceptedPerSecond = Array(repeating: 0, count: Int(seconds.rounded(.up)) + 1)
    }

    /// The results of several connections together, latencies sorted.
    public init(merging results: [LoadResult]) {
        latencies = results.flatMap(\.latencies).sorted()
        refused = results.reduce(0) { $0 + $1.refused }
        errors = results.reduce(0) { $0 + $1.errors }
        acceptedPerSecond = results.reduce(into: Array(repeating: 0, count: results.map(\.acceptedPerSecond.count).max() ?? 0)) { sum, result in
            for (second, count) in result.acceptedPerSecond.enumerated() { sum[second] += count }
        }
    }

    /// Counts one answer with `status`, received `second` seconds into the window.
    mutating func record(status: UInt, nanoseconds: UInt64, second: Int) {
        switch status {
        case 200..<300:
            latencies.append(nanoseconds)
            if second < acceptedPerSecond.count { acceptedPerSecond[second] += 1 }
        case 429: refused += 1
        default: errors += 1
        }
    }

    /// How many requests were accepted.
    public var accepted: Int { latencies.count }

    /// Microseconds of one core the whole machine (server, workers and load generator) spent
    /// running code per accepted request during the window.
    public var machineMicrosecondsPerRequest: Double? {
        guard let machine, accepted > 0 else { return nil }
        return machine.end.busySeconds(since: machine.start) * 1e6 / Double(accepted)
    }

    /// Microseconds of CPU the server's processes alone (the server and its workers, not the load
    /// generator) spent per accepted request during the window.
    public var serverMicrosecondsPerRequest: Double? {
        guard let server, accepted > 0 else { return nil }
        return (server.end - server.start) * 1e6 / Double(accepted)
    }

    /// Context switches on the whole machine per accepted request during the window.
    public var contextSwitchesPerRequest: Double? {
        guard let machine, accepted > 0 else { return nil }
        return (machine.end.contextSwitches - machine.start.contextSwitches) / Double(accepted)
    }

    /// The share of the machine's CPU time the hypervisor gave to other guests during the window
    /// (steal): on a shared virtual machine, what most often makes one run differ from the next.
    public var stealShare: Double? {
        machine.map { $0.end.stealShare(since: $0.start) }
    }

    /// The latency in milliseconds below which `fraction` of the accepted requests fall (nearest
    /// rank). The latencies must be sorted, as ``init(merging:)`` leaves them.
    public func percentileMilliseconds(_ fraction: Double) -> Double {
        guard !latencies.isEmpty else { return .nan }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up))
        return Double(latencies[min(max(rank, 1), latencies.count) - 1]) / 1e6
    }
}
