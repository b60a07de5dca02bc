import Cloudlet
import Foundation

/// Where an app keeps the state of its push jobs' fan-out and of each delivery to one device, beside
/// its objects (the jobs themselves are `_PushStatus` objects). The delivery service drives it: it
/// starts recorded jobs, writes their recipients as deliveries page by page, claims due deliveries
/// with a lease and records their outcomes in batches, keeping each job's `_PushStatus` up to date.
public protocol PushDeliveryStorage: Sendable {
    /// Signalled once a write in this process has committed a new push job, so that the delivery
    /// service starts it at once instead of polling for it.
    var pushJobRecorded: WakeSignal { get }

    /// When the database was last written by any process, as its files tell (nil if they cannot):
    /// when it changes, the delivery service looks for jobs another process recorded.
    func lastWrittenAt() -> Date?

    /// When the earliest scheduled job is due to start, if any.
    func nextScheduledPushJob() async throws -> Date?

    /// Makes every delivery claimed and not yet recorded due again at `now`: at start, the claims of
    /// a run that ended (crashed or stopped) with sends in flight.
    func releasePushLeases(now: Date) async throws

    /// Up to `limit` jobs to look at: recorded and not yet started, or scheduled and due by `now`.
    func pushJobsToStart(now: Date, limit: Int) async throws -> [String]

    /// Up to `limit` jobs whose deliveries are being made.
    func runningPushJobs(limit: Int) async throws -> [PushJobProgress]

    /// Holds job `id` until `time` (its `pushTime`): `_PushStatus.status` becomes `scheduled`.
    func schedulePushJob(_ id: String, at time: Date, now: Date) async throws

    /// Starts job `id`: `_PushStatus.status` becomes `running`.
    func startPushJob(_ id: String, now: Date) async throws

    /// The recipients `page` (a ``PushRecipients/pageQuery(after:limit:)``) selects, in its order,
    /// as their deliveries need them: only four fields of each are read, and no installation is
    /// decoded. Throws the query's Parse error (102, …) for a query that cannot run.
    func pushRecipients(_ page: ParseQuery) async throws -> [PushRecipient]

    /// Writes one page of job `id`'s recipients as deliveries due at `now`, and the job's cursor
    /// (`cursor`, and `isLast` for the last page), in one transaction: an installation that already
    /// has a delivery of this job gets no second one, and one without a token gets none. With a
    /// `badgeIncrement`, each new delivery's installation has its `badge` raised by it in that
    /// transaction, and the delivery carries the result.
    func expandPushJob(
        _ id: String, recipients: [PushRecipient], cursor: String?, isLast: Bool, badgeIncrement: Int?, now: Date
    ) async throws

    /// Claims up to `limit` deliveries due by `now` until `leaseUntil`: until an outcome is recorded
    /// or the lease runs out, no other claim returns them. A claim of fewer than `limit` also says
    /// when the next pending delivery falls due.
    func claimPushDeliveries(now: Date, leaseUntil: Date, limit: Int) async throws -> PushDeliveryClaim

    /// Records the results of claimed deliveries in one transaction and updates their jobs'
    /// `_PushStatus` counts. A result for a delivery that has already ended (its job failed meanwhile)
    /// changes nothing.
    func recordPushResults(_ results: [PushDeliveryResult], now: Date) async throws

    /// Ends job `id`: the deliveries it still has end as `ending` says, and `_PushStatus.status`
    /// becomes the job's final status (see ``PushJobEnding``).
    func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws
}

/// How the fan-out of one running job stands.
public struct PushJobProgress: Sendable, Hashable {
    /// The `_PushStatus` object id.
    public var jobId: String
    /// The `objectId` of the last installation written as a delivery, if any.
    public var cursor: String?
    /// Whether every recipient has its delivery.
    public var isExpanded: Bool
    /// Deliveries written and not yet ended.
    public var pending: Int

    public init(jobId: String, cursor: String?, isExpanded: Bool, pending: Int) {
        self.jobId = jobId
        self.cursor = cursor
        self.isExpanded = isExpanded
        self.pending = pending
    }
}

/// One installation a push job goes to, as its delivery needs it.
public struct PushRecipient: Sendable, Hashable {
    /// The installation's `objectId`.
    public var installationId: String
    /// Its `deviceType` ("" when it has none that is a string).
    public var deviceType: String
    /// Its `deviceToken`; nil when the stored value is not a string (it gets no delivery).
    public var token: String?
    /// Its `pushType`, if it is a string.
    public var pushType: String?

    public init(installationId: String, deviceType: String, token: String?, pushType: String?) {
        self.installationId = installationId
        self.deviceType = deviceType
        self.token = token
        self.pushType = pushType
    }
}

/// How a job ends, and what becomes of its deliveries not yet ended.
public enum PushJobEnding: Sendable, Hashable {
    /// Every delivery has ended: `succeeded` if one was sent or there was no recipient, `expired` if
    /// all expired, else `failed`.
    case completed
    /// The job cannot be sent (a bad job, a query that fails, a provider's job-wide refusal): it
    /// fails with `reason` as its `errorMessage`, and so do its remaining deliveries.
    case failed(reason: String)
    /// Its expiration passed: its remaining deliveries expire; `succeeded` if one was sent, else `expired`.
    case expired
    /// Already finished before the service saw it (its stored status is final): left as it is.
    case untouched
}

/// What one claim returned.
public struct PushDeliveryClaim: Sendable, Hashable {
    /// The deliveries claimed, earliest due first.
    public var deliveries: [PushDelivery]
    /// When a claim came back short: the earliest due time of the deliveries still pending (a
    /// retry's, or a lease's end), if there is one.
    public var nextDueAt: Date?

    public init(deliveries: [PushDelivery], nextDueAt: Date?) {
        self.deliveries = deliveries
        self.nextDueAt = nextDueAt
    }
}

/// One delivery of one job to one installation, as claimed.
public struct PushDelivery: Sendable, Hashable {
    /// The delivery's row.
    public var sequence: Int64
    /// The `_PushStatus` object id.
    public var jobId: String
    /// The installation's `objectId`.
    public var installationId: String
    /// The installation's `deviceType`.
    public var deviceType: String
    /// The installation's `deviceToken` when the delivery was made.
    public var token: String
    /// The installation's `pushType`, if any.
    public var pushType: String?
    /// The badge resolved for this installation when the job's badge is `Increment`.
    public var badge: Int?
    /// A UUID made once, at fan-out: ``PushMessage/id`` of every attempt.
    public var key: String
    /// Attempts so far, this one included.
    public var attempts: Int
    /// When the claim runs out.
    public var leaseUntil: Date

    public init(
        sequence: Int64, jobId: String, installationId: String, deviceType: String, token: String, pushType: String?, badge: Int?,
        key: String, attempts: Int, leaseUntil: Date
    ) {
        self.sequence = sequence
        self.jobId = jobId
        self.installationId = installationId
        self.deviceType = deviceType
        self.token = token
        self.pushType = pushType
        self.badge = badge
        self.key = key
        self.attempts = attempts
        self.leaseUntil = leaseUntil
    }
}

/// What becomes of one claimed delivery.
public enum PushDeliveryResolution: Sendable, Hashable {
    /// Sent: it ends `sent`.
    case sent
    /// It ends `failed` with `reason`.
    case failed(reason: String)
    /// It ends `failed` with `reason`, and the installation's `deviceToken` is unset if it is still
    /// this delivery's token and, when `unregisteredAt` is given, the installation was last updated before it.
    case invalidToken(reason: String, unregisteredAt: Date?)
    /// Due again at `time`; `reason` is kept as its last.
    case retry(reason: String, at: Date)
    /// Its job's expiration passed before it was sent: it ends `expired`.
    case expired
    /// It ends `failed` with `reason`, and so does its whole job (see ``PushJobEnding/failed(reason:)``).
    case jobFailed(reason: String)
}

/// A claimed delivery and what becomes of it.
public struct PushDeliveryResult: Sendable, Hashable {
    /// The delivery, as claimed.
    public var delivery: PushDelivery
    /// What becomes of it.
    public var resolution: PushDeliveryResolution

    public init(_ delivery: PushDelivery, _ resolution: PushDeliveryResolution) {
        self.delivery = delivery
        self.resolution = resolution
    }
}
