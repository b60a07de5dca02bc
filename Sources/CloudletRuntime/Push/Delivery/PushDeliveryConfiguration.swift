/// How an app's queued push deliveries are worked through. How many run at once and how long a
/// claim holds one are the work queue's (``WorkSettings``).
public struct PushDeliveryConfiguration: Sendable {
    /// How soon a job's fan-out looks again while ``fanOutAhead`` of its deliveries wait to be
    /// sent. Default 250 ms.
    public var pollInterval: Duration
    /// The most attempts of one delivery; a retry past them fails with the last reason. Default 12:
    /// with the default backoff's waits (250 ms, 500 ms, 1 s … 256 s, each between half and all of
    /// that) a delivery is tried for 4 to 9 minutes before it fails.
    public var maximumAttempts: Int
    /// The wait before a retry the provider gave no time for: by default from 250 ms (most failures
    /// of one send are over a moment later) up to 5 minutes, jittered.
    public var backoff: Backoff
    /// Installations read and written as deliveries at a time. Default 1,000, which is also the
    /// most: one query returns no more.
    public var pageSize: Int
    /// How many deliveries of a job may wait to be sent before its next page is written: the
    /// fan-out keeps this far ahead of the sends, so memory and the queue's rows stay flat.
    /// Default 4,000.
    public var fanOutAhead: Int

    /// The default ``backoff``.
    public static let defaultBackoff = Backoff(first: .milliseconds(250), maximum: .seconds(300), isJittered: true)

    public init(
        pollInterval: Duration = .milliseconds(250), maximumAttempts: Int = 12, backoff: Backoff = Self.defaultBackoff,
        pageSize: Int = PushRecipients.defaultPageSize, fanOutAhead: Int = 4_000
    ) {
        self.pollInterval = pollInterval
        self.maximumAttempts = max(maximumAttempts, 1)
        self.backoff = backoff
        self.pageSize = max(pageSize, 1)
        self.fanOutAhead = max(fanOutAhead, 1)
    }
}

/// Where and how an app's push is delivered: the providers the app has now (an app's providers may
/// be replaced while it is served) and the delivery configuration.
public struct PushDeliverySetup: Sendable {
    /// The app's providers, as they are when a delivery is sent.
    public var providers: @Sendable () -> PushProviders
    public var configuration: PushDeliveryConfiguration

    /// A setup sending through `providers` (by default none: every delivery fails `NoProvider`).
    public init(
        providers: @escaping @Sendable () -> PushProviders = { PushProviders(fallback: nil) },
        configuration: PushDeliveryConfiguration = PushDeliveryConfiguration()
    ) {
        self.providers = providers
        self.configuration = configuration
    }
}
