import Cloudlet
import CloudletRuntime
import GRDB

/// ``ObjectStorage`` in the app's database: objects sit in one table keyed by class and id, their
/// fields as JSON that queries read with SQLite's JSON functions; every value reaches SQL as a
/// bound parameter.
public struct SQLiteObjectStore: ObjectStorage {
    let database: SQLiteAppDatabase

    /// The objects of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `objects` (the `outbox` table it made then was folded into the work queue since) and
    /// `fields`, the type each field of each class was first written with.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
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
    }

    public var fileURLs: FileURLs? { database.fileURLs }

    /// The rows this store writes, checked as every store checks them.
    var rows: ObjectRows { database.objectRows }
    /// Where the after hooks of its writes are queued.
    var queue: SQLiteWorkQueue { SQLiteWorkQueue(database) }

    public func fetch(_ className: String, id: String) async throws -> ParseObject? {
        try await database.pool.read { db in try ObjectRows.fetch(db, className, id) }.map(database.presented)
    }

    /// The objects matching `query`, each charged to the query's budget as it is read, so that a
    /// read past the budget stops at it. When its `keys` ask for `$score`, each object holds its
    /// relevance to the query's `$text` as `score`, as Parse answers it.
    public func find(_ query: StorageQuery) async throws -> [ParseObject] {
        let statement = try SQLiteQueryBuilder.select(query)
        let database = database
        let scored = query.query.keys?.contains("$score") == true
        return try await database.read(statement) { db in
            var objects: [ParseObject] = []
            let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: statement.arguments)
            while let row = try rows.next() {
                var object = try ObjectRows.object(query.query.className, row, budget: query.budget)
                if scored, let score: Double = row["text_score"] { object.fields["score"] = .number(score) }
                objects.append(database.presented(object))
            }
            return objects
        }
    }

    public func count(_ query: StorageQuery) async throws -> Int {
        let statement = try SQLiteQueryBuilder.count(query)
        return try await database.read(statement) { db in try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? 0 }
    }

    public func sharedTransaction(deadline: WriteDeadline) -> any SharedTransaction {
        database.sharedTransaction(deadline: deadline)
    }

    public func installations(with key: InstallationKey, equalTo value: String, limit: Int) async throws -> [ParseObject] {
        try await database.pool.read { db in
            try SQLiteInstallationIndex.installations(with: key, equalTo: value, limit: limit, db)
        }.map(database.presented)
    }
}
