import CloudletRuntime
import Foundation

/// The pace of one LiveQuery connection's messages (``LiveQueryServerSettings/messagesPerConnection``):
/// the generic cell rate algorithm over one instant, when the quota is whole again.
struct MessagePace {
    let quota: RateLimitQuota
    private var wholeAt: Date?

    init(_ quota: RateLimitQuota) {
        self.quota = quota
    }

    /// Whether a message arriving `now` fits the quota (it is then counted).
    mutating func admit(at now: Date) -> Bool {
        let whole = max(wholeAt ?? now, now)
        guard RateLimitState(quota, wait: whole.timeIntervalSince(now)).allowed else { return false }
        wholeAt = whole.addingTimeInterval(quota.interval)
        return true
    }
}
