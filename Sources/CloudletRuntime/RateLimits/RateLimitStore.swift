import Foundation

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

    /// The state of one more request under `quota` on a key whose quota is whole again in `wait`
    /// seconds (0 if it is whole now): allowed if the request's share of the window fits in it.
    ///
    /// A store that decides elsewhere whether a charge fits (``fits(_:wait:)``) answers the same.
    public init(_ quota: RateLimitQuota, wait: Double) {
        let interval = quota.interval
        let window = quota.window.seconds
        let load = wait + interval
        if Self.fits(quota, wait: wait) {
            self.init(allowed: true, remaining: Int(((window - load + Self.tolerance) / interval).rounded(.down)), resetAfter: load, retryAfter: 0)
        } else {
            self.init(allowed: false, remaining: 0, resetAfter: wait, retryAfter: max(0, wait + interval - window))
        }
    }

    private init(allowed: Bool, remaining: Int, resetAfter: Double, retryAfter: Double) {
        self.allowed = allowed
        self.remaining = remaining
        self.resetAfter = resetAfter
        self.retryAfter = retryAfter
    }

    /// Whether one more request under `quota` fits on a key whose quota is whole again in `wait` seconds.
    public static func fits(_ quota: RateLimitQuota, wait: Double) -> Bool {
        wait + quota.interval <= quota.window.seconds + tolerance
    }

    /// Slack for the rounding of times in seconds (a `Date`'s seconds since 2001 keep about
    /// 0.1 µs), so that a request exactly on time is let through and counted right.
    public static let tolerance = 0.000_01
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
