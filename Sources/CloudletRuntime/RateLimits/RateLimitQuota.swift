import Cloudlet

/// How much one key may do: `count` requests per `window`, all of them at once if it has been
/// quiet (the burst), then evenly as the window refills.
///
/// ```swift
/// RateLimitQuota(count: 80, window: .seconds(2))   // 40/s with a burst of 80
/// ```
public struct RateLimitQuota: Sendable, Hashable {
    /// Requests allowed per window; also the most allowed at once.
    public var count: Int
    /// The window `count` refills over.
    public var window: Duration

    public init(count: Int, window: Duration) {
        self.count = count
        self.window = window
    }

    /// `rate` requests a second with bursts of up to `burst`.
    public init(perSecond rate: Double, burst: Int) {
        count = max(1, burst)
        window = .milliseconds(Int64((Double(count) / max(rate, 0.000_001) * 1000).rounded()))
    }

    /// Requests a second in the long run.
    public var ratePerSecond: Double { Double(count) / window.seconds }

    /// The time one request uses up.
    public var interval: Double { window.seconds / Double(count) }
}
