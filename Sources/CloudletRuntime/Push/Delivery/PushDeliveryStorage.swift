import Cloudlet
import Foundation

/// Where an app keeps the state of its push jobs' fan-out, beside its objects (the jobs themselves
/// are `_PushStatus` objects). Its deliveries are rows of the app's work queue (kind
/// ``WorkKind/pushDelivery``): recording a job queues its fan-out, which writes its recipients as
/// one delivery each, page by page; the app's ``AppWorkService`` claims and runs them, and the
/// outcome of each is recorded here, keeping its job's `_PushStatus` up to date.
public protocol PushDeliveryStorage: Sendable {
    /// Holds job `id` until its `pushTime`: `_PushStatus.status` becomes `scheduled`.
    func schedulePushJob(_ id: String, now: Date) async throws

    /// Starts job `id`: `_PushStatus.status` becomes `running`.
    func startPushJob(_ id: String, now: Date) async throws

    /// How the fan-out of job `id` stands, if the job is known.
    func pushJobProgress(_ id: String) async throws -> PushJobProgress?

    /// The recipients `page` (a ``PushRecipients/pageQuery(after:limit:)``) selects, in its order,
    /// as their deliveries need them: only four fields of each are read, and no installation is
    /// decoded. Throws the query's Parse error (102, …) for a query that cannot run.
    func pushRecipients(_ page: ParseQuery) async throws -> [PushRecipient]

    /// Queues one page of running job `id`'s recipients as deliveries due at `now`, and keeps the
    /// job's cursor (`cursor`, and `isLast` for the last page), in one transaction: a recipient whose
    /// delivery of this job is still queued gets no second one, and one without a token gets none.
    /// With a `badgeIncrement`, each new delivery's installation has its `badge` raised by it in
    /// that transaction, and the delivery carries the result. A last page that leaves nothing
    /// pending ends the job. Does nothing once the job has ended.
    func expandPushJob(
        _ id: String, recipients: [PushRecipient], cursor: String?, isLast: Bool, badgeIncrement: Int?, now: Date
    ) async throws

    /// Records how a delivery `owner` holds ended, in one transaction: its queued row goes, its
    /// job's `_PushStatus` counts are updated, and the job ends if this was its last delivery (or
    /// fails, for ``PushDeliveryResolution/jobFailed(reason:)``). Answers false, changing nothing,
    /// when `owner` no longer holds it (its job ended meanwhile, or its lease ran out). A retry is
    /// not recorded here: the queue makes the row due again.
    @discardableResult
    func recordPushResult(_ result: PushDeliveryResult, owner: String, now: Date) async throws -> Bool

    /// Ends job `id`: the deliveries it still has queued end as `ending` says, and `_PushStatus.status`
    /// becomes the job's final status (see ``PushJobEnding``).
    func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws
}

/// How the fan-out of one job stands.
public struct PushJobProgress: Sendable, Hashable {
    /// The `_PushStatus` object id.
    public var jobId: String
    /// The `objectId` of the last installation written as a delivery, if any.
    public var cursor: String?
    /// Whether every recipient has its delivery.
    public var isExpanded: Bool
    /// Whether the job has ended.
    public var isFinished: Bool
    /// Deliveries written and not yet ended.
    public var pending: Int

    public init(jobId: String, cursor: String?, isExpanded: Bool, isFinished: Bool, pending: Int) {
        self.jobId = jobId
        self.cursor = cursor
        self.isExpanded = isExpanded
        self.isFinished = isFinished
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
    /// Already finished before its fan-out ran (its stored status is final): left as it is.
    case untouched
}

/// One delivery of one job to one installation: a row of the work queue, as claimed.
public struct PushDelivery: Sendable, Hashable {
    /// The row's id in the work queue: ``PushDelivery/workId(job:installation:)``.
    public var id: String
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

    public init(
        id: String, jobId: String, installationId: String, deviceType: String, token: String, pushType: String?, badge: Int?,
        key: String, attempts: Int
    ) {
        self.id = id
        self.jobId = jobId
        self.installationId = installationId
        self.deviceType = deviceType
        self.token = token
        self.pushType = pushType
        self.badge = badge
        self.key = key
        self.attempts = attempts
    }

    /// The delivery `work` holds, or nil when `work` is a job's fan-out (its payload names only the job).
    public init?(_ work: ClaimedWork) {
        let payload = work.payload
        guard let jobId = payload["job"]?.stringValue, let key = payload["key"]?.stringValue else { return nil }
        self.init(
            id: work.id, jobId: jobId, installationId: payload["installation"]?.stringValue ?? "",
            deviceType: payload["deviceType"]?.stringValue ?? "", token: payload["token"]?.stringValue ?? "",
            pushType: payload["pushType"]?.stringValue, badge: payload["badge"]?.intValue, key: key, attempts: work.attempts)
    }

    /// The queued row of job `job`'s fan-out, queued as the job is recorded.
    public static func fanOutId(job: String) -> String { fanOutPrefix + job }

    /// The queued row of job `job`'s delivery to installation `installation`.
    public static func workId(job: String, installation: String) -> String { "push-\(job)-\(installation)" }

    /// What ``fanOutId(job:)`` starts with.
    package static let fanOutPrefix = "pushjob-"
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
    /// Due again at `time`, after failing with `reason`.
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

    /// How the delivery ended, as its job's counts tell it (whether it was sent, and why not);
    /// nil for one to retry, which has not ended.
    public var ending: (sent: Bool, reason: String)? {
        switch resolution {
        case .sent: (true, "")
        case .failed(let reason), .invalidToken(let reason, _), .jobFailed(let reason): (false, reason)
        case .expired: (false, PushJobCounts.expiredReason)
        case .retry: nil
        }
    }
}
