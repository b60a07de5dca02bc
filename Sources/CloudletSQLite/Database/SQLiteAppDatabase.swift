import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// One app's SQLite database, through GRDB, in WAL mode: what every store of the app shares (its
/// connections, its field schema, its bounds, the signal of work queued). The stores are small
/// types over it, one per storage protocol of the core; ``AppStores/init(_:)`` gathers them.
///
/// ```swift
/// let database = try SQLiteAppDatabase(path: "data/apps/chat.sqlite")
/// let runtime = AppRuntime(appId: "chat", stores: AppStores(database), executor: executor, clock: SystemClock(), …)
/// ```
public final class SQLiteAppDatabase: Sendable {
    /// How hard a commit is pushed to disk.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous=NORMAL`: an acknowledged write survives a crash of the process.
        case normal
        /// `synchronous=FULL`: an acknowledged write survives a power loss too.
        case full
    }

    /// The largest object stored by default: 1 MiB of fields and ACL, as JSON.
    public static let defaultMaximumObjectBytes = 1 << 20
    /// The match steps one query's `$regex` patterns may take together by default: about 0.3 s of one
    /// core in a release build (the matcher takes ~160 million steps a second there).
    public static let defaultRegexStepsPerQuery = 50_000_000
    /// The SQLite instructions one aggregate (`distinct` or a pipeline) may run by default: a few
    /// seconds of one core, a scan and sorts of about a million objects.
    public static let defaultAggregateInstructions = 1_000_000_000

    let pool: DatabasePool
    /// The groups the saves' writes commit in (``write(_:)``).
    package let writeGroups: SQLiteWriteGroups
    /// The database file.
    let path: String
    /// Signalled once a write has committed new work to the work queue.
    let workQueued = WakeSignal()
    /// Copies the log back beside the writer; the pool's configuration keeps it alive.
    package let checkpointer: SQLiteCheckpointer
    /// Tells when the planner's statistics are due for a refresh, from the pages the writer commits.
    package let statistics: SQLiteStatistics
    /// The type of each field of each class, checked in every write transaction.
    let schema = FieldSchemaCache()
    /// The classes the text index covers, as far as this process knows.
    let textClasses = TextIndexedClasses()
    /// The most bytes an object's fields and ACL may take as stored JSON; a write past it answers 116.
    let maximumObjectBytes: Int
    /// The match steps one query's `$regex` patterns may take together.
    let regexStepsPerQuery: Int
    /// The SQLite instructions one aggregate may run (102 past them).
    let aggregateInstructions: Int
    /// The URLs `File` values read back get (see ``ObjectStorage/fileURLs``).
    let fileURLs: FileURLs?
    /// The app's feed of committed writes for LiveQuery, which this database's writes publish to
    /// (``AppStores/liveChanges``).
    let liveChanges = LiveObjectChanges()

    /// Opens (creating if needed) the database at `path` and brings its tables up to date. Writes
    /// of objects larger than `maximumObjectBytes` are refused (116), and a query's `$regex`
    /// patterns may take at most `regexStepsPerQuery` match steps in all (102 past them), an
    /// aggregate at most `aggregateInstructions` SQLite instructions (102 past them). `File`
    /// values read back get their URLs from `fileURLs`.
    public convenience init(
        path: String, durability: Durability = .normal, maximumObjectBytes: Int = defaultMaximumObjectBytes,
        regexStepsPerQuery: Int = defaultRegexStepsPerQuery, aggregateInstructions: Int = defaultAggregateInstructions,
        fileURLs: FileURLs? = nil
    ) throws {
        try self.init(
            path: path, durability: durability, maximumObjectBytes: maximumObjectBytes, regexStepsPerQuery: regexStepsPerQuery,
            aggregateInstructions: aggregateInstructions, fileURLs: fileURLs, checkpointInlinePages: SQLiteCheckpointer.defaultInlinePages)
    }

    /// The database at `path`, as above, whose writer checkpoints inside its commit once the log
    /// passes `checkpointInlinePages` pages (see ``SQLiteCheckpointer``). A new database starts as a
    /// copy of ``SQLiteEmptyDatabase`` when `fromImage` is true, else migrates from nothing.
    init(
        path: String, durability: Durability = .normal, maximumObjectBytes: Int = defaultMaximumObjectBytes,
        regexStepsPerQuery: Int = defaultRegexStepsPerQuery, aggregateInstructions: Int = defaultAggregateInstructions,
        fileURLs: FileURLs? = nil, checkpointInlinePages: Int32, fromImage: Bool = true
    ) throws {
        if fromImage, !FileManager.default.fileExists(atPath: path) { _ = SQLiteEmptyDatabase.create(at: path) }
        self.aggregateInstructions = aggregateInstructions
        self.path = path
        self.fileURLs = fileURLs
        self.maximumObjectBytes = maximumObjectBytes
        self.regexStepsPerQuery = regexStepsPerQuery
        SQLiteProcessSettings.apply()
        let statistics = SQLiteStatistics()
        let checkpointer = SQLiteCheckpointer(path: path, inlinePages: checkpointInlinePages, statistics: statistics)
        self.checkpointer = checkpointer
        self.statistics = statistics
        var configuration = Configuration()
        // Another process writing the same file (a `cloudlet` command, a second opening) holds the
        // write lock for one short transaction: wait for it rather than fail the write.
        configuration.busyMode = .timeout(Self.busyWait)
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            db.add(function: SQLiteRegex.function)
            for function in SQLiteGeo.functions { db.add(function: function) }
            if !db.configuration.readonly { checkpointer.attach(to: db) }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        writeGroups = SQLiteWriteGroups(pool: pool)
        try SQLiteMigrations.migrator.migrate(pool)
    }

    /// How long a write waits for another process's write transaction on the same file.
    static let busyWait: TimeInterval = 5

    /// The upkeep of this database beside its requests (checkpoints and statistics): a service to run
    /// for as long as the app is served.
    package var maintenance: SQLiteMaintenance { SQLiteMaintenance(database: self) }

    // A database that no service runs the checkpointer of (a command's, a test's) closes it here.
    deinit {
        checkpointer.close()
    }

    /// A write, in the transaction of the next group of writes (``SQLiteWriteGroups``): answered once
    /// that has committed. If the caller has a ``WriteDeadline`` and it passes before the commit, the
    /// write rolls back instead of committing (the caller has had its 504 by then).
    /// In the task of a member of a shared transaction of this database (a transactional batch's
    /// operation), the write joins that transaction instead (``SQLiteSharedTransaction``).
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        let deadline = WriteDeadline.current
        try deadline?.check()
        let checked: @Sendable (Database) throws -> Value = { db in
            let value = try body(db)
            try deadline?.check()
            return value
        }
        if let member = SharedTransactionMember.current, let shared = member.transaction as? SQLiteSharedTransaction, shared.database === self,
            case .committed(let value) = try await shared.join(checked, held: member.held)
        {
            return value
        }
        return try await writeGroups.write(deadline: deadline, checked)
    }

    /// A write in an immediate transaction of its own, outside the groups: for what must not wait
    /// behind a group or share its fate (work claims, sessions, statistics). Its `BEGIN` and
    /// `COMMIT` are the connection's cached statements (``Database/inCachedImmediateTransaction(_:)``).
    func writeAlone<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await pool.writeWithoutTransaction { db in try db.inCachedImmediateTransaction { try body(db) } }
    }

    /// A new transaction that the writes of several operations join (see ``SharedTransaction``).
    func sharedTransaction(deadline: WriteDeadline) -> any SharedTransaction {
        SQLiteSharedTransaction(database: self, deadline: deadline)
    }

    /// The rows of the `objects` table as every store writes them in its transactions.
    var objectRows: ObjectRows { ObjectRows(database: self) }

    /// `object` as it leaves the database: its `File` values rebuilt from their names (``FileURLs``).
    func presented(_ object: ParseObject) -> ParseObject {
        FileURLs.presenting(object, with: fileURLs)
    }
}

extension AppStores {
    /// Every store of the app whose database is `database`: build it once per app.
    public init(_ database: SQLiteAppDatabase) {
        self.init(
            objects: SQLiteObjectStore(database), accounts: SQLiteAccountStore(database), work: SQLiteWorkQueue(database),
            jobs: SQLiteJobStore(database), push: SQLitePushStore(database), fileUsage: SQLiteFileUsageStore(database),
            hookRuns: SQLiteHookRunStore(database), config: SQLiteGlobalConfigStore(database),
            schemas: SQLiteSchemaStore(database))
        liveChanges = database.liveChanges
    }
}
