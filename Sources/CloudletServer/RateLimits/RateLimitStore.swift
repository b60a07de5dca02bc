import Foundation
import Synchronization

/// One charge against one key's quota.
public struct RateLimitCharge: Sendable, Hashable {
    /// What is counted: the app, the limit and the zone's key (`rule:2|ip:203.0.113.9`).
    public var key: String
    /// The key's quota.
    public var quota: RateLimitQuota

    public init(key: String, quota: RateLimitQuota) {
        self.key = key
        self.quota = quota
    }
}

/// Where one charge stands after ``RateLimitStore/charge(_:now:)``.
public struct RateLimitState: Sendable, Hashable {
    /// Whether this charge fits its quota.
    public var allowed: Bool
    /// Requests the key may still make at once.
    public var remaining: Int
    /// Until the key's quota is whole again.
    public var resetAfter: Double
    /// Until the next request would fit (0 when allowed).
    public var retryAfter: Double
}

/// Holds the limiters' state: for each key, when its quota is next whole. Behind a protocol so
/// that several nodes serving one app can share it; ``InMemoryRateLimitStore`` is the default.
public protocol RateLimitStore: Sendable {
    /// Charges one request to every charge's key if each of them has room; if any has none,
    /// charges none of them. Answers each charge's state, in order.
    func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState]
}

/// Rate limit state in this process's memory: the generic cell rate algorithm, one timestamp
/// per key (when the key's quota is whole again). A key whose quota is whole is the same as no
/// key, so it is dropped; past ``capacity`` keys the ones nearest to whole go first.
public final class InMemoryRateLimitStore: RateLimitStore {
    /// The most keys held at once.
    public let capacity: Int
    private let fullAt = Mutex<[String: Date]>([:])

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState] {
        chargeNow(charges, now: now)
    }

    /// ``charge(_:now:)`` without suspending.
    public func chargeNow(_ charges: [RateLimitCharge], now: Date) -> [RateLimitState] {
        fullAt.withLock { table in
            var states: [RateLimitState] = []
            var next: [Date] = []
            for charge in charges {
                let interval = charge.quota.interval
                let window = charge.quota.window.seconds
                let start = max(table[charge.key] ?? now, now)
                let after = start.addingTimeInterval(interval)
                let load = after.timeIntervalSince(now)
                if load <= window + Self.tolerance {
                    states.append(
                        RateLimitState(
                            allowed: true, remaining: Int(((window - load + Self.tolerance) / interval).rounded(.down)), resetAfter: load,
                            retryAfter: 0))
                } else {
                    let current = start.timeIntervalSince(now)
                    states.append(
                        RateLimitState(
                            allowed: false, remaining: 0, resetAfter: current, retryAfter: max(0, current + interval - window)))
                }
                next.append(after)
            }
            if states.allSatisfy(\.allowed) {
                for (charge, after) in zip(charges, next) { table[charge.key] = after }
                if table.count > capacity { Self.trim(&table, now: now, to: capacity) }
            }
            return states
        }
    }

    /// Slack for the rounding of `Date` (whose seconds since 2001 keep about 0.1 µs), so that a
    /// request exactly on time is let through and counted right.
    private static let tolerance = 0.000_01

    /// How many keys are held now.
    public var keyCount: Int { fullAt.withLock { $0.count } }

    private static func trim(_ table: inout [String: Date], now: Date, to capacity: Int) {
        table = table.filter { $0.value > now }
        guard table.count > capacity else { return }
        let keep = table.sorted { $0.value > $1.value }.prefix(capacity * 9 / 10)
        table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
