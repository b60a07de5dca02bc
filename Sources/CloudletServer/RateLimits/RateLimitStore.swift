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

    /// What charging `charge` now would answer, without charging it and without waiting; nil if
    /// the store cannot tell without waiting (one across the network, say).
    func stateNow(_ charge: RateLimitCharge, now: Date) -> RateLimitState?
}

extension RateLimitStore {
    /// A store that cannot answer without waiting answers nil.
    public func stateNow(_ charge: RateLimitCharge, now: Date) -> RateLimitState? { nil }
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
                let start = max(table[charge.key] ?? now, now)
                states.append(Self.state(charge.quota, fullAt: start, now: now))
                next.append(start.addingTimeInterval(charge.quota.interval))
            }
            if states.allSatisfy(\.allowed) {
                for (charge, after) in zip(charges, next) { table[charge.key] = after }
                if table.count > capacity { Self.trim(&table, now: now, to: capacity) }
            }
            return states
        }
    }

    public func stateNow(_ charge: RateLimitCharge, now: Date) -> RateLimitState? {
        let start = fullAt.withLock { max($0[charge.key] ?? now, now) }
        return Self.state(charge.quota, fullAt: start, now: now)
    }

    /// The state of one more request on a key whose quota is whole again at `start` (not before `now`).
    private static func state(_ quota: RateLimitQuota, fullAt start: Date, now: Date) -> RateLimitState {
        let interval = quota.interval
        let window = quota.window.seconds
        let load = start.addingTimeInterval(interval).timeIntervalSince(now)
        if load <= window + tolerance {
            return RateLimitState(
                allowed: true, remaining: Int(((window - load + tolerance) / interval).rounded(.down)), resetAfter: load, retryAfter: 0)
        }
        let current = start.timeIntervalSince(now)
        return RateLimitState(allowed: false, remaining: 0, resetAfter: current, retryAfter: max(0, current + interval - window))
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
