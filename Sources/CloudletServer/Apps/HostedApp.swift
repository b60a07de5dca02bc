/// One app the server hosts: its id, its keys, its rate limits and its runtime.
public struct HostedApp: Sendable {
    /// The app id clients send as `X-Parse-Application-Id`.
    public let id: String
    /// The app's keys.
    public let keys: AppKeys
    /// The app's request path.
    public let runtime: AppRuntime
    /// The app's rate limits, applied before its requests do any work.
    public let rateLimiter: RateLimiter

    public init(id: String, keys: AppKeys, runtime: AppRuntime, rateLimiter: RateLimiter) {
        self.id = id
        self.keys = keys
        self.runtime = runtime
        self.rateLimiter = rateLimiter
    }
}
