import Foundation

/// Failure times by key, in two generations: a key is found in either, written to the current one,
/// and the previous generation is dropped whole when the current one fills up or is a window old.
/// Every key and its failures outlive a window in the table unless `capacity` (given to
/// ``rotate(now:window:capacity:)``) distinct keys arrive first. Used by ``LoginThrottle`` and
/// ``OperatorKeyGuard``.
package struct FailureTable {
    package var current: [String: [Date]] = [:]
    package var previous: [String: [Date]] = [:]
    package var startedAt: Date

    package init(startedAt: Date) { self.startedAt = startedAt }

    package var keyCount: Int { current.count + previous.count }

    package mutating func rotate(now: Date, window: Double, capacity: Int) {
        guard current.count >= capacity / 2 || now.timeIntervalSince(startedAt) >= window else { return }
        previous = current
        current = [:]
        startedAt = now
    }

    package func recentCount(_ key: String, now: Date, window: Double) -> Int {
        let oldest = now.addingTimeInterval(-window)
        return (current[key] ?? previous[key] ?? []).reduce(0) { $1 > oldest ? $0 + 1 : $0 }
    }

    /// Adds a failure at `time`, keeping the latest `keeping` (more never change the answer).
    package mutating func append(_ key: String, _ time: Date, keeping: Int) {
        var times = current[key] ?? previous.removeValue(forKey: key) ?? []
        times.append(time)
        if times.count > keeping { times.removeFirst(times.count - keeping) }
        current[key] = times
    }

    package mutating func remove(_ key: String) {
        current[key] = nil
        previous[key] = nil
    }

    package mutating func removeOne(_ key: String, _ time: Date) {
        if let index = current[key]?.lastIndex(of: time) {
            current[key]!.remove(at: index)
        } else if let index = previous[key]?.lastIndex(of: time) {
            previous[key]!.remove(at: index)
        }
    }
}
