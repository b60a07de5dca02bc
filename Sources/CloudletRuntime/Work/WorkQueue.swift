import Cloudlet
import Foundation

/// What a row of the work queue is, which says who runs it.
public struct WorkKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// A run of a background job (its `_JobStatus` is kept beside it).
    public static let job = WorkKind(rawValue: "job")
    /// A push job's delivery: its fan-out, or its send to one device (see ``PushDelivery``).
    public static let pushDelivery = WorkKind(rawValue: "pushDelivery")
    /// An after hook owed by a save or delete, queued in the write's transaction.
    public static let afterHook = WorkKind(rawValue: "afterHook")
}

/// Work to queue: what it is, what it needs, and when it may first run.
public struct NewWork: Sendable, Hashable {
    /// Unique in the queue: queuing an id already there leaves the row there alone.
    public var id: String
    public var kind: WorkKind
    /// What the runner of `kind` needs, as JSON.
    public var payload: ParseValue
    /// The work may not run before this; for work queued already leased, when its lease runs out.
    public var due: Date
    /// Who holds the work as it is queued, when its queuer runs it itself; nil for work any holder
    /// may claim.
    public var heldBy: String?

    public init(id: String, kind: WorkKind, payload: ParseValue, due: Date, heldBy: String? = nil) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.due = due
        self.heldBy = heldBy
    }
}

/// A row of the queue leased to one runner: no other claims it until ``leasedUntil``, unless it
/// is released or retried first.
public struct ClaimedWork: Sendable, Hashable {
    public var id: String
    public var kind: WorkKind
    public var payload: ParseValue
    /// The attempts at it so far, this one included (1 the first time).
    public var attempts: Int
    /// Who holds it.
    public var owner: String
    /// When the lease runs out: then another claim may take it (the holder is taken to be gone).
    public var leasedUntil: Date

    package init(id: String, kind: WorkKind, payload: ParseValue, attempts: Int, owner: String, leasedUntil: Date) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.attempts = attempts
        self.owner = owner
        self.leasedUntil = leasedUntil
    }
}

/// How a holder ends one row it holds.
public struct WorkEnding: Sendable, Equatable {
    public var id: String
    /// Who holds it: the row is left alone if another holder has since claimed it.
    public var owner: String
    public var outcome: WorkOutcome

    public init(id: String, owner: String, outcome: WorkOutcome) {
        self.id = id
        self.owner = owner
        self.outcome = outcome
    }
}

/// A queue of work that is done at least once: rows are claimed with a lease, and a row whose
/// holder ends before completing it (a crash, a kill) is claimed again once its lease runs out.
///
/// A row is due at one time: at first when it may first run, while leased when its lease runs
/// out, after a failure when its retry is. A claim takes due rows, oldest due first, which maps
/// onto PostgreSQL's `SELECT … FOR UPDATE SKIP LOCKED LIMIT n` as onto SQLite's one writer.
/// Each holder's calls name it (`owner`): a call about a row another holder has since claimed
/// changes nothing and answers false (or 0).
///
/// ```swift
/// try await queue.enqueue([NewWork(id: id, kind: .job, payload: payload, due: now)])
/// for work in try await queue.claim([.job], limit: 4, owner: me, at: now, leasedUntil: now + 30) {
///     try await run(work)
///     try await queue.complete(work.id, owner: me)
/// }
/// ```
public protocol WorkQueue: Sendable {
    /// Signalled once work queued by this process has committed, for the loop that claims it.
    var workQueued: WakeSignal { get }

    /// Whether other nodes claim from this queue as they run: the rows one that died held then fall
    /// due when their leases run out, which nothing announces. False unless a store says so.
    var isShared: Bool { get }

    /// Adds `work`; rows whose id is queued already are left as they are.
    func enqueue(_ work: [NewWork]) async throws

    /// Up to `limit` rows of `kinds` due at `now`, oldest due first, each leased to `owner` until
    /// `leasedUntil` with its attempts counted.
    func claim(_ kinds: Set<WorkKind>, limit: Int, owner: String, at now: Date, leasedUntil: Date) async throws -> [ClaimedWork]

    /// Extends to `leasedUntil` the leases `owner` still holds among `ids`; answers how many.
    @discardableResult
    func renew(_ ids: [String], owner: String, leasedUntil: Date) async throws -> Int

    /// Ends each row of `endings` as its outcome says, in one write, each only if its holder still
    /// holds it: a row done goes, one to retry is due again at its time, one released is due at
    /// `now` with its attempt not counted. Answers how many rows were still held.
    @discardableResult
    func end(_ endings: [WorkEnding], at now: Date) async throws -> Int

    /// Makes every row leased to a holder other than `owner` due at `now`, as if its lease had run
    /// out (its attempt stays counted); answers how many. Only for a queue `owner` alone claims
    /// from, whose other holders are known to have ended (``WorkSettings/soleHolder``).
    @discardableResult
    func takeBack(leasedByOthersThan owner: String, at now: Date) async throws -> Int

    /// When the earliest row of `kinds` is due (leased rows when their lease runs out), if any is.
    func nextDue(_ kinds: Set<WorkKind>) async throws -> Date?

    /// When the queue was last written by any process, as far as can be told cheaply (nil if it
    /// cannot): when it changes, work another process queued (such as `cloudlet push send`) may be due.
    func lastWrittenAt() -> Date?
}

extension WorkQueue {
    public var isShared: Bool { false }

    /// Removes `id`: it is done (or given up). False if `owner` no longer held it.
    @discardableResult
    public func complete(_ id: String, owner: String) async throws -> Bool {
        try await end([WorkEnding(id: id, owner: owner, outcome: .done)], at: Date()) > 0
    }

    /// Ends `owner`'s lease on `id`, due again at `due` (its attempt stays counted).
    @discardableResult
    public func retry(_ id: String, owner: String, at due: Date) async throws -> Bool {
        try await end([WorkEnding(id: id, owner: owner, outcome: .retry(at: due))], at: due) > 0
    }

    /// Hands back the rows of `ids` that `owner` holds, due at `now` and their attempts not counted
    /// (the holder stops before running them to their end, as on shutdown); answers how many.
    @discardableResult
    public func release(_ ids: [String], owner: String, at now: Date) async throws -> Int {
        try await end(ids.map { WorkEnding(id: $0, owner: owner, outcome: .released) }, at: now)
    }
}
