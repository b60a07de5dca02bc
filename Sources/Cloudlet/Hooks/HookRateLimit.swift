/// A limit a hook declares on how often it may be called, checked by the host before the hook
/// runs (429 with Parse code 155 past it), on top of the app's own limits.
///
/// ```swift
/// hooks.function("authenticate", rateLimit: .perIP(5, per: .minute)) { request in … }
/// ```
public struct HookRateLimit: Sendable, Hashable {
    /// Whose calls are counted together.
    public var scope: RateLimitZone
    /// Calls allowed per ``window`` (and at most at once).
    public var count: Int
    /// The window the count refills over.
    public var window: Duration

    public init(scope: RateLimitZone, count: Int, window: Duration) {
        self.scope = scope
        self.count = max(1, count)
        self.window = window
    }

    /// `count` calls per `period` from each client address.
    public static func perIP(_ count: Int, per period: Duration) -> HookRateLimit { .init(scope: .ip, count: count, window: period) }
    /// `count` calls per `period` from each user.
    public static func perUser(_ count: Int, per period: Duration) -> HookRateLimit { .init(scope: .user, count: count, window: period) }
    /// `count` calls per `period` from each session.
    public static func perSession(_ count: Int, per period: Duration) -> HookRateLimit {
        .init(scope: .session, count: count, window: period)
    }
    /// `count` calls per `period` in all.
    public static func global(_ count: Int, per period: Duration) -> HookRateLimit { .init(scope: .global, count: count, window: period) }
}

/// What a rate limit counts requests by.
public enum RateLimitZone: String, Sendable, Hashable, CaseIterable {
    /// All requests together.
    case global
    /// Each client address (the socket's peer, or `X-Forwarded-For` from a trusted proxy).
    case ip
    /// Each logged-in user; callers with no session count by address.
    case user
    /// Each session; callers with no session count by address.
    case session
}

extension Duration {
    /// One second, for rate limits: `.perIP(5, per: .second)`.
    public static let second = Duration.seconds(1)
    /// One minute, for rate limits: `.perIP(5, per: .minute)`.
    public static let minute = Duration.seconds(60)
    /// One hour, for rate limits: `.perUser(100, per: .hour)`.
    public static let hour = Duration.seconds(3600)
}
