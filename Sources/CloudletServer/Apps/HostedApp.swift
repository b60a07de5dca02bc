import CloudletRuntime

/// One app the server hosts: its id, its keys, its file options, its rate limits, its runtime, its
/// push providers and its job schedules.
public struct HostedApp: Sendable {
    /// The app id clients send as `X-Parse-Application-Id`.
    public let id: String
    /// The app's keys.
    public let keys: AppKeys
    /// The app's upload limit and whether uploads need a session.
    public let fileSettings: FileSettings
    /// The app's request path.
    public let runtime: AppRuntime
    /// The app's rate limits, applied before its requests do any work.
    public let rateLimiter: RateLimiter
    /// Where the app's push notifications go, by device type.
    public let pushProviders: PushProviders
    /// When the app's jobs run by themselves, by job name (from the registry's settings).
    public let jobSchedules: [String: CronSchedule]

    public init(
        id: String, keys: AppKeys, fileSettings: FileSettings = FileSettings(), runtime: AppRuntime, rateLimiter: RateLimiter,
        pushProviders: PushProviders = PushProviders(fallback: nil), jobSchedules: [String: CronSchedule] = [:]
    ) {
        self.id = id
        self.keys = keys
        self.fileSettings = fileSettings
        self.runtime = runtime
        self.rateLimiter = rateLimiter
        self.pushProviders = pushProviders
        self.jobSchedules = jobSchedules
    }
}
