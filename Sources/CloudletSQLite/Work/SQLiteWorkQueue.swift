import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The app's work queue in its own database, as the `work_queue` table: one row per piece of work,
/// `due` being when it may next be claimed (for a leased row, when its lease runs out). Claims go
/// through SQLite's one writer, so two claims never take the same row.
public struct SQLiteWorkQueue: WorkQueue {
    let database: SQLiteAppDatabase

    /// The work queue of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    public var workQueued: WakeSignal { database.workQueued }

    /// The table, and the job runs that an earlier version left `running` (it ran them outside any
    /// queue), queued so that they run again rather than being lost.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("work_queue") { db in
            try db.execute(
                sql: """
                    CREATE TABLE work_queue (
                        seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, payload TEXT NOT NULL,
                        due REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, lease_owner TEXT
                    );
                    CREATE INDEX work_queue_due ON work_queue (kind, due);
                    INSERT INTO work_queue (id, kind, payload, due)
                        SELECT id, ?, json_object(
                            'name', json_extract(data, '$.jobName'), 'params', json(coalesce(json_extract(data, '$.params'), '{}')),
                            'requestId', 'upgrade-' || id), 0
                        FROM objects WHERE class = ? AND json_extract(data, '$.status') = ? ORDER BY created_at;
                    """,
                arguments: [WorkKind.job.rawValue, JobStatus.className, JobStatus.State.running.rawValue])
        }
    }

    public func enqueue(_ work: [NewWork]) async throws {
        guard !work.isEmpty else { return }
        try await database.writeAlone { db in try Self.enqueue(work, db) }
        workQueued.signal()
    }

    /// Adds `work` in the transaction of `db` (so that it is queued if and only if that commits).
    static func enqueue(_ work: [NewWork], _ db: Database) throws {
        for item in work {
            try insertWork(
                workRow(id: item.id, kind: item.kind, payload: JSONWriter.string(item.payload), due: item.due, heldBy: item.heldBy), db)
        }
    }

    /// The columns of a queued row, its payload encoded already; a row queued held counts its
    /// holder's run as its first attempt.
    static func workRow(id: String, kind: WorkKind, payload: String, due: Date, heldBy: String?) -> StatementArguments {
        [id, kind.rawValue, payload, due.timeIntervalSince1970, heldBy == nil ? 0 : 1, heldBy]
    }

    /// Adds the row `row` (``workRow(id:kind:payload:due:heldBy:)``) in the transaction of `db`,
    /// unless its id is queued already.
    static func insertWork(_ row: StatementArguments, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO work_queue (id, kind, payload, due, attempts, lease_owner) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: row)
    }

    public func claim(_ kinds: Set<WorkKind>, limit: Int, owner: String, at now: Date, leasedUntil: Date) async throws -> [ClaimedWork] {
        guard limit > 0, !kinds.isEmpty else { return [] }
        let kindList = kinds.map(\.rawValue).sorted()
        return try await database.writeAlone { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: Self.claimSQL(kinds: kindList.count)),
                arguments: StatementArguments(kindList) + [now.timeIntervalSince1970, limit])
            let lease = try db.cachedStatement(sql: "UPDATE work_queue SET lease_owner = ?, due = ?, attempts = attempts + 1 WHERE id = ?")
            return try rows.map { row in
                let id: String = row["id"]
                try lease.execute(arguments: [owner, leasedUntil.timeIntervalSince1970, id])
                return ClaimedWork(
                    id: id, kind: WorkKind(rawValue: row["kind"]), payload: try JSONParser.parse(row["payload"] as String),
                    attempts: (row["attempts"] as Int) + 1, owner: owner, leasedUntil: leasedUntil)
            }
        }
    }

    /// The claim's query over `kinds` kinds (arguments: the kinds, the time rows must be due by, the
    /// limit). It walks the `(kind, due)` index of each kind from its earliest row and stops once
    /// the limit is met, so that a claim reads the rows it takes, not those due or leased behind them.
    package static func claimSQL(kinds: Int) -> String {
        """
        SELECT id, kind, payload, attempts FROM work_queue
        WHERE kind IN (\(databaseQuestionMarks(count: kinds))) AND due <= ? ORDER BY due, seq LIMIT ?
        """
    }

    /// When the earliest row of `kinds` kinds is due (arguments: the kinds): the first entry of
    /// each kind's walk of the `(kind, due)` index.
    package static func nextDueSQL(kinds: Int) -> String {
        "SELECT MIN(due) FROM work_queue WHERE kind IN (\(databaseQuestionMarks(count: kinds)))"
    }

    @discardableResult
    public func renew(_ ids: [String], owner: String, leasedUntil: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await database.writeAlone { db in
            let statement = try db.cachedStatement(sql: "UPDATE work_queue SET due = ? WHERE id = ? AND lease_owner = ?")
            var changed = 0
            for id in ids {
                try statement.execute(arguments: [leasedUntil.timeIntervalSince1970, id, owner])
                changed += db.changesCount
            }
            return changed
        }
    }

    @discardableResult
    public func end(_ endings: [WorkEnding], at now: Date) async throws -> Int {
        guard !endings.isEmpty else { return 0 }
        // In the next group of writes: the ends of after hooks share the commit of the saves.
        return try await database.writeGroups.write(deadline: nil) { db in
            var changed = 0
            for ending in endings {
                switch ending.outcome {
                case .done:
                    try db.cachedStatement(sql: "DELETE FROM work_queue WHERE id = ? AND lease_owner = ?").execute(arguments: [ending.id, ending.owner])
                case .retry(let due):
                    try db.cachedStatement(sql: "UPDATE work_queue SET lease_owner = NULL, due = ? WHERE id = ? AND lease_owner = ?")
                        .execute(arguments: [due.timeIntervalSince1970, ending.id, ending.owner])
                case .released:
                    try db.cachedStatement(sql: "UPDATE work_queue SET lease_owner = NULL, due = ?, attempts = attempts - 1 WHERE id = ? AND lease_owner = ?")
                        .execute(arguments: [now.timeIntervalSince1970, ending.id, ending.owner])
                }
                changed += db.changesCount
            }
            return changed
        }
    }

    @discardableResult
    public func takeBack(leasedByOthersThan owner: String, at now: Date) async throws -> Int {
        try await database.writeAlone { db in
            try db.execute(
                sql: "UPDATE work_queue SET lease_owner = NULL, due = ? WHERE lease_owner IS NOT NULL AND lease_owner <> ?",
                arguments: [now.timeIntervalSince1970, owner])
            return db.changesCount
        }
    }

    /// How many rows of `kind` are queued, leased or not.
    package func queuedCount(_ kind: WorkKind) async throws -> Int {
        try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM work_queue WHERE kind = ?", arguments: [kind.rawValue]) ?? 0
        }
    }

    public func nextDue(_ kinds: Set<WorkKind>) async throws -> Date? {
        guard !kinds.isEmpty else { return nil }
        let kindList = kinds.map(\.rawValue).sorted()
        return try await database.pool.read { db in
            try Double.fetchOne(db.cachedStatement(sql: Self.nextDueSQL(kinds: kindList.count)), arguments: StatementArguments(kindList))
        }.map(Date.init(timeIntervalSince1970:))
    }

    public func lastWrittenAt() -> Date? {
        // In WAL mode every commit writes the log; a checkpoint then writes the database file.
        [database.path + "-wal", database.path].compactMap(FileModification.time(of:)).max()
    }
}
