import Cloudlet
import CloudletRuntime
import Foundation
import GRDB
import Synchronization

/// ``ObjectStorage`` in one SQLite file per app, through GRDB, in WAL mode.
///
/// Objects sit in one table keyed by class and id, their fields as JSON that queries read with
/// SQLite's JSON functions; every value reaches SQL as a bound parameter.
public final class SQLiteObjectStorage: ObjectStorage {
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

    let pool: DatabasePool
    /// The database file.
    let path: String
    /// Signalled once a write has committed new work to the work queue.
    public let workQueued = WakeSignal()
    /// Copies the log back beside the writer; the pool's configuration keeps it alive.
    package let checkpointer: SQLiteCheckpointer
    let schema = FieldSchemaCache()
    /// The most bytes an object's fields and ACL may take as stored JSON; a write past it answers 116.
    let maximumObjectBytes: Int
    /// The match steps one query's `$regex` patterns may take together.
    let regexStepsPerQuery: Int
    public let fileURLs: FileURLs?

    /// Opens (creating if needed) the database at `path`. Writes of objects larger than
    /// `maximumObjectBytes` are refused (116), and a query's `$regex` patterns may take at most
    /// `regexStepsPerQuery` match steps in all (102 past them). `File` values read back get their
    /// URLs from `fileURLs`.
    public init(
        path: String, durability: Durability = .normal, maximumObjectBytes: Int = defaultMaximumObjectBytes,
        regexStepsPerQuery: Int = defaultRegexStepsPerQuery, fileURLs: FileURLs? = nil
    ) throws {
        self.path = path
        self.fileURLs = fileURLs
        self.maximumObjectBytes = maximumObjectBytes
        self.regexStepsPerQuery = regexStepsPerQuery
        SQLiteProcessSettings.apply()
        let checkpointer = SQLiteCheckpointer(path: path)
        self.checkpointer = checkpointer
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            db.add(function: SQLiteRegex.function)
            for function in SQLiteGeo.functions { db.add(function: function) }
            if !db.configuration.readonly { checkpointer.attach(to: db) }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    // A storage that no service runs the checkpointer of (a command's, a test's) closes it here.
    deinit {
        checkpointer.close()
    }

    /// Every migration, in the order databases apply them: a new one goes last.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("objects") { db in
            try db.execute(
                sql: """
                    CREATE TABLE objects (
                        class TEXT NOT NULL, id TEXT NOT NULL,
                        created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                        acl TEXT, data TEXT NOT NULL,
                        PRIMARY KEY (class, id)
                    ) WITHOUT ROWID;
                    CREATE INDEX objects_by_creation ON objects (class, created_at);
                    CREATE TABLE fields (
                        class TEXT NOT NULL, field TEXT NOT NULL, type TEXT NOT NULL,
                        PRIMARY KEY (class, field)
                    ) WITHOUT ROWID;
                    CREATE TABLE outbox (
                        seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, event TEXT NOT NULL
                    );
                    """)
        }
        registerAccountTables(&migrator)
        registerHookRunTable(&migrator)
        registerPushTables(&migrator)
        registerInstallationIndexes(&migrator)
        registerJobTables(&migrator)
        registerLeanPushDeliveries(&migrator)
        registerFileUsageTable(&migrator)
        registerWorkQueueTable(&migrator)
        registerQueuedPushDeliveries(&migrator)
        registerAfterHookMigration(&migrator)
        return migrator
    }

    public func fetch(_ className: String, id: String) async throws -> ParseObject? {
        try await pool.read { db in try Self.fetch(db, className, id) }.map(presented)
    }

    /// `object` as it leaves the storage: its `File` values rebuilt from their names (``FileURLs``).
    func presented(_ object: ParseObject) -> ParseObject {
        FileURLs.presenting(object, with: fileURLs)
    }

    static func fetch(_ db: Database, _ className: String, _ id: String) throws -> ParseObject? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, created_at, updated_at, acl, data FROM objects WHERE class = ? AND id = ?"),
            arguments: [className, id]
        ).map { try object(className, $0) }
    }

    /// The objects matching `query`, each charged to the query's budget as it is read, so that a
    /// read past the budget stops at it.
    public func find(_ query: StorageQuery) async throws -> [ParseObject] {
        let statement = try SQLiteQueryBuilder.select(query)
        return try await pool.read { db in
            try SQLiteRegex.running(statement.patterns, steps: self.regexStepsPerQuery) {
                var objects: [ParseObject] = []
                let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: statement.arguments)
                while let row = try rows.next() {
                    objects.append(self.presented(try Self.object(query.query.className, row, budget: query.budget)))
                }
                return objects
            }
        }
    }

    public func count(_ query: StorageQuery) async throws -> Int {
        let statement = try SQLiteQueryBuilder.count(query)
        return try await pool.read { db in
            try SQLiteRegex.running(statement.patterns, steps: self.regexStepsPerQuery) {
                try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? 0
            }
        }
    }

    /// The object in `row`, charged to `budget` (if any) before it is parsed.
    static func object(_ className: String, _ row: Row, budget: ReadBudget? = nil) throws -> ParseObject {
        let data: String = row["data"]
        let acl: String? = row["acl"]
        try budget?.charge(bytes: ReadBudget.storedSize(data: data, acl: acl))
        return ParseObject(
            className: className,
            objectId: row["id"],
            createdAt: ParseDate.date(from: row["created_at"]),
            updatedAt: ParseDate.date(from: row["updated_at"]),
            acl: try acl.flatMap { ParseACL(json: try JSONParser.parse($0)) },
            fields: try JSONParser.parse(data).objectValue ?? [:])
    }
}
