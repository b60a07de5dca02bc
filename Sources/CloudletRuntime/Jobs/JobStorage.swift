import Cloudlet
import Foundation

/// Where an app's job runs are kept: its `_JobStatus` objects, which only the server writes, and
/// the state of its schedules. Checks that bound the runs (how many at once, one per scheduled job)
/// happen in the same transaction as the write, so that two starts cannot both pass them; the run
/// is queued (``WorkQueue``) in that transaction too.
public protocol JobStorage: Sendable {
    /// Stores `status` (a new `_JobStatus` with its id and timestamps) and queues `work` (its run),
    /// unless `maximumRunning` runs of the app are running already or, when `exclusive`, a run of
    /// the same job is.
    func recordJobStart(_ status: ParseObject, work: NewWork, maximumRunning: Int, exclusive: Bool) async throws -> JobStartOutcome

    /// Sets `fields` on the run `id` if it is still running, and returns whether it was (a run that
    /// ended or was deleted is left alone). A run that ends this way makes room: the oldest ended
    /// runs past the newest ``JobStatus/retention`` are deleted.
    @discardableResult
    func updateRunningJob(_ id: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool

    /// The state of each schedule, by job name.
    func jobScheduleStates() async throws -> [String: JobScheduleState]

    /// Keeps `state` as the state of `job`'s schedule.
    func saveJobScheduleState(_ state: JobScheduleState, of job: String) async throws

    /// Moves `job`'s schedule of `expression` from having dealt with its times through
    /// `handledThrough` to through `now`, unless another scheduler (another node's) moved it first;
    /// answers whether this caller did, and so runs what came due. Of several schedulers reading
    /// one state, one claims each due time.
    func claimJobSchedule(_ job: String, expression: String, handledThrough: Date, now: Date) async throws -> Bool
}

/// How ``JobStorage/recordJobStart(_:maximumRunning:exclusive:)`` went.
public enum JobStartOutcome: Sendable, Equatable {
    /// The run is recorded as running.
    case started
    /// The app runs as many jobs as it may already.
    case tooManyRunning
    /// The job runs already (for an exclusive start).
    case alreadyRunning
}

/// Where one schedule stands: what it fired up to, and its last run.
public struct JobScheduleState: Sendable, Hashable {
    /// The expression this state is for; a changed expression starts afresh.
    public var expression: String
    /// Every time the schedule fired up to this moment has been dealt with (run, or skipped).
    public var handledThrough: Date
    /// When the schedule last started a run.
    public var lastRunAt: Date?
    /// The `_JobStatus` id of that run.
    public var lastStatusId: String?
    /// How many times it came due and did not start: its previous run still ran (or the app ran as
    /// many jobs as it may), so that time was skipped.
    public var skippedRuns: Int

    /// The state of a schedule of `expression` dealt with up to `handledThrough`.
    public init(expression: String, handledThrough: Date, lastRunAt: Date? = nil, lastStatusId: String? = nil, skippedRuns: Int = 0) {
        self.expression = expression
        self.handledThrough = handledThrough
        self.lastRunAt = lastRunAt
        self.lastStatusId = lastStatusId
        self.skippedRuns = skippedRuns
    }
}
