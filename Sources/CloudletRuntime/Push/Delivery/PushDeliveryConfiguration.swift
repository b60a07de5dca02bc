/// How the push delivery service works through each app's deliveries.
public struct PushDeliveryConfiguration: Sendable {
    /// The most sends of one app in flight at once. Default 256: each send waits a network round
    /// trip for its answer, and 10,000 deliveries/s with answers in 25 ms is 250 in flight.
    public var concurrency: Int
    /// How long a claimed delivery is held for its send; past it, it is due again. Default 30 s.
    public var lease: Duration
    /// While an app has sends in flight or results to record: how long results wait at most before
    /// they are recorded, and how often its jobs' fan-out is looked at. An app with nothing in
    /// flight is not polled: it is woken when a job is recorded and when work falls due. Default 250 ms.
    public var pollInterval: Duration
    /// How often each app's database files are looked at for a write by another process (such as
    /// `cloudlet push`), after which its jobs are looked at. Default 2 s.
    public var outsideWriteInterval: Duration
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
    /// fan-out keeps this far ahead of the sends, so memory and the table's pending rows stay flat.
    /// Default 4,000.
    public var fanOutAhead: Int
    /// The most results recorded in one transaction. Default 256.
    public var resultsPerTransaction: Int

    /// The default ``backoff``.
    public static let defaultBackoff = Backoff(first: .milliseconds(250), maximum: .seconds(300), isJittered: true)

    public init(
        concurrency: Int = 256, lease: Duration = .seconds(30), pollInterval: Duration = .milliseconds(250),
        outsideWriteInterval: Duration = .seconds(2), maximumAttempts: Int = 12,
        backoff: Backoff = Self.defaultBackoff, pageSize: Int = PushRecipients.defaultPageSize, fanOutAhead: Int = 4_000,
        resultsPerTransaction: Int = 256
    ) {
        self.concurrency = max(concurrency, 1)
        self.lease = lease
        self.pollInterval = pollInterval
        self.outsideWriteInterval = outsideWriteInterval
        self.maximumAttempts = max(maximumAttempts, 1)
        self.backoff = backoff
        self.pageSize = max(pageSize, 1)
        self.fanOutAhead = max(fanOutAhead, 1)
        self.resultsPerTransaction = max(resultsPerTransaction, 1)
    }
}
