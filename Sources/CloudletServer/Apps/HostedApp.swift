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

/// The apps a server hosts, by id.
public struct AppDirectory: Sendable {
    private let apps: [String: HostedApp]

    public init(_ apps: [HostedApp]) {
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The app `id`, or nil.
    public func app(_ id: String) -> HostedApp? { apps[id] }

    /// Every hosted app.
    public var all: [HostedApp] { Array(apps.values) }
}
