/// A limit a hook declares on how often it may be called, checked by the host before the hook
/// runs (429 with Parse code 155 past it), on top of the app's own limits.
///
/// ```swift
/// hooks.function("authenticate", rateLimit: .perIP(5, per: .minute)) { request in … }
/// ```
public struct HookRateLimit: Sendable, Hashable {
    /// Whose calls are counted together.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Every call of the hook.
        case global
        /// Each client address.
        case ip
        /// Each logged-in user (callers with no session count by address).
        case user
        /// Each session (callers with no session count by address).
        case session
    }

    /// Whose calls are counted together.
    public var scope: Scope
    /// Calls allowed per ``window`` (and at most at once).
    public var count: Int
    /// The window the count refills over.
    public var window: Duration

    public init(scope: Scope, count: Int, window: Duration) {
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

extension Duration {
    /// One second, for rate limits: `.perIP(5, per: .second)`.
    public static let second = Duration.seconds(1)
    /// One minute, for rate limits: `.perIP(5, per: .minute)`.
    public static let minute = Duration.seconds(60)
    /// One hour, for rate limits: `.perUser(100, per: .hour)`.
    public static let hour = Duration.seconds(3600)
}
