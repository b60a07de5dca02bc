import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The app's hook log: a `hook_runs` table in the app's own database, pruned to the newest runs
/// on every write. It has no index but its key: a run written is one row inserted and, once it is
/// older than the retention, one deleted, and a read by hook walks the newest runs backwards.
public struct SQLiteHookRunStore: HookRunStorage {
    let database: SQLiteAppDatabase

    /// The hook log of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `hook_runs`, at first indexed by hook (see ``registerKeyOnly(_:)``).
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("hook_runs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE hook_runs (
                        seq INTEGER PRIMARY KEY, hook TEXT NOT NULL, request_id TEXT NOT NULL,
                        started_at REAL NOT NULL, duration_ms REAL NOT NULL, outcome TEXT NOT NULL, error TEXT,
                        lines TEXT NOT NULL, dropped_lines INTEGER NOT NULL
                    );
                    CREATE INDEX hook_runs_by_hook ON hook_runs (hook, seq);
                    """)
        }
    }

    /// `hook_runs` without its index by hook: each run written paid for it twice (inserted, then
    /// pruned), for reads of at most the retention's rows.
    static func registerKeyOnly(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("hook_runs_by_key_only") { db in
            try db.execute(sql: "DROP INDEX IF EXISTS hook_runs_by_hook")
        }
    }

    public func appendHookRuns(_ runs: [HookRun], retention: Int) async throws {
        // Rows are encoded before the write, and written in small transactions, so that saves
        // waiting for the writer are held up briefly.
        let rows: [StatementArguments] = runs.map { run in
            [
                run.hook, run.requestId, run.startedAt.timeIntervalSince1970, run.duration.milliseconds, run.outcome.rawValue, run.error,
                JSONWriter.string(.array(run.lines.map(\.json))), run.droppedLines,
            ]
        }
        for start in stride(from: 0, to: rows.count, by: HookRunLog.runsPerTransaction) {
            let batch = rows[start..<min(start + HookRunLog.runsPerTransaction, rows.count)]
            try await database.writeAlone { db in
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO hook_runs (hook, request_id, started_at, duration_ms, outcome, error, lines, dropped_lines)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for row in batch { try insert.execute(arguments: row) }
                // Sequence numbers are contiguous (rows go only at the top and leave only from the
                // bottom), so the cut is one lookup of the newest rather than a walk over the kept rows.
                try db.cachedStatement(sql: "DELETE FROM hook_runs WHERE seq <= (SELECT max(seq) FROM hook_runs) - ?")
                    .execute(arguments: [max(retention, 0)])
            }
        }
    }

    public func hookRuns(_ query: HookRunQuery) async throws -> [HookRun] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let hook = query.hook {
            conditions.append("hook = ?")
            arguments += [hook]
        }
        if let since = query.since {
            conditions.append("started_at >= ?")
            arguments += [since.timeIntervalSince1970]
        }
        if let after = query.after {
            conditions.append("seq > ?")
            arguments += [after]
        }
        arguments += [max(query.limit, 0)]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM hook_runs \(filter) ORDER BY seq DESC LIMIT ?"
        return try await database.pool.read { [arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).reversed().map(Self.hookRun)
        }
    }

    private static func hookRun(_ row: Row) throws -> HookRun {
        let lines: String = row["lines"]
        let durationMilliseconds: Double = row["duration_ms"]
        return HookRun(
            sequence: row["seq"], hook: row["hook"], requestId: row["request_id"],
            startedAt: Date(timeIntervalSince1970: row["started_at"]),
            duration: .microseconds(Int64((durationMilliseconds * 1000).rounded())),
            outcome: HookOutcome(rawValue: row["outcome"]) ?? .error, error: row["error"],
            lines: (try JSONParser.parse(lines).arrayValue ?? []).map(HookRun.Line.init(json:)), droppedLines: row["dropped_lines"])
    }
}
