import Cloudlet
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

    let pool: DatabasePool
    let schema = FieldSchemaCache()
    let completedEvents = CompletedOutboxEvents()

    /// Opens (creating if needed) the database at `path`.
    public init(path: String, durability: Durability = .normal) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            db.add(function: SQLiteRegex.function)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
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
        return migrator
    }

    public func fetch(_ className: String, id: String) async throws -> ParseObject? {
        try await pool.read { db in try Self.fetch(db, className, id) }
    }

    static func fetch(_ db: Database, _ className: String, _ id: String) throws -> ParseObject? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, created_at, updated_at, acl, data FROM objects WHERE class = ? AND id = ?"),
            arguments: [className, id]
        ).map { try object(className, $0) }
    }

    public func find(_ query: StorageQuery) async throws -> [ParseObject] {
        let statement = try SQLiteQueryBuilder.select(query)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments).map {
                try Self.object(query.query.className, $0)
            }
        }
    }

    public func count(_ query: StorageQuery) async throws -> Int {
        let statement = try SQLiteQueryBuilder.count(query)
        return try await pool.read { db in
            try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? 0
        }
    }

    static func object(_ className: String, _ row: Row) throws -> ParseObject {
        let data: String = row["data"]
        let acl: String? = row["acl"]
        return ParseObject(
            className: className,
            objectId: row["id"],
            createdAt: ParseDate.date(from: row["created_at"]),
            updatedAt: ParseDate.date(from: row["updated_at"]),
            acl: try acl.flatMap { ParseACL(json: try JSONParser.parse($0)) },
            fields: try JSONParser.parse(data).objectValue ?? [:])
    }
}
