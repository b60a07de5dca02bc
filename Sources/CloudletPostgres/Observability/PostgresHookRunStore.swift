import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// The app's hook log in its PostgreSQL schema: a `hook_runs` table pruned to the newest runs on
/// every write, as the SQLite store's.
///
/// Writes to one app's log take turns under an advisory lock on it (readers go on, and so does
/// `VACUUM`, which a table lock would hold off), so that sequence numbers are contiguous across
/// every node: the cut keeps exactly the newest `retention` runs, and a
/// reader following the log with ``HookRunQuery/after`` misses no run committed late. A hook's
/// name, request id and error are kept up to a NUL they may hold, as on SQLite.
public struct PostgresHookRunStore: HookRunStorage {
    private let database: PostgresDatabase
    private let table: String
    /// The name of the advisory lock that writes to this log take.
    private let writeLock: String

    /// The hook log of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        table = schema.quoted + ".hook_runs"
        writeLock = "cloudlet hook_runs " + schema.name
    }

    /// `hook_runs`, indexed by hook.
    static let migration = PostgresMigrations.Migration(
        name: "hook_runs",
        statements: [
            """
            CREATE TABLE {schema}.hook_runs (
                seq bigint PRIMARY KEY, hook text NOT NULL, request_id text NOT NULL,
                started_at double precision NOT NULL, duration_ms double precision NOT NULL, outcome text NOT NULL, error text,
                lines text NOT NULL, dropped_lines bigint NOT NULL
            )
            """,
            "CREATE INDEX hook_runs_by_hook ON {schema}.hook_runs (hook, seq)",
        ])

    /// The columns a run is written to and read from, in order.
    private static let columns = "hook, request_id, started_at, duration_ms, outcome, error, lines, dropped_lines"

    public func appendHookRuns(_ runs: [HookRun], retention: Int) async throws {
        for start in stride(from: 0, to: runs.count, by: HookRunLog.runsPerTransaction) {
            let batch = runs[start..<min(start + HookRunLog.runsPerTransaction, runs.count)]
            try await database.transaction { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(writeLock), 0))", logger: database.logger)
                var newest: Int64 = 0
                for try await seq in try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT coalesce(max(seq), 0) FROM \(table)"), logger: database.logger
                ).decode(Int64.self) {
                    newest = seq
                }
                var binds = PostgresBindings()
                var rows: [String] = []
                for run in batch {
                    newest += 1
                    let first = binds.count + 1
                    rows.append("(" + (first..<first + 9).map { "$\($0)" }.joined(separator: ", ") + ")")
                    binds.append(newest)
                    binds.append(run.hook.postgresText)
                    binds.append(run.requestId.postgresText)
                    binds.append(run.startedAt.timeIntervalSince1970)
                    binds.append(run.duration.milliseconds)
                    binds.append(run.outcome.rawValue)
                    binds.append(run.error?.postgresText)
                    binds.append(JSONWriter.string(.array(run.lines.map(\.json))))
                    binds.append(run.droppedLines)
                }
                try await connection.query(
                    PostgresQuery(unsafeSQL: "INSERT INTO \(table) (seq, \(Self.columns)) VALUES \(rows.joined(separator: ", "))", binds: binds),
                    logger: database.logger)
                // Sequence numbers are contiguous, so the cut is one comparison with the newest. The
                // oldest rows are found through the key in its order, whatever the table's statistics
                // say (a plain range was planned as a scan of the whole log), a bounded number a time.
                var cut = PostgresBindings()
                cut.append(newest - Int64(max(retention, 0)))
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "DELETE FROM \(table) WHERE seq IN (SELECT seq FROM \(table) WHERE seq <= $1 ORDER BY seq LIMIT \(Self.pruneBatch))",
                        binds: cut),
                    logger: database.logger)
            }
        }
    }

    /// The most runs one append prunes: past a lowered retention, the log shrinks to it this many a time.
    static let pruneBatch = 1_000

    public func hookRuns(_ query: HookRunQuery) async throws -> [HookRun] {
        var conditions: [String] = []
        var binds = PostgresBindings()
        if let hook = query.hook {
            binds.append(hook.postgresText)
            conditions.append("hook = $\(binds.count)")
        }
        if let since = query.since {
            binds.append(since.timeIntervalSince1970)
            conditions.append("started_at >= $\(binds.count)")
        }
        if let after = query.after {
            binds.append(after)
            conditions.append("seq > $\(binds.count)")
        }
        binds.append(max(query.limit, 0))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT seq, \(Self.columns) FROM \(table) \(filter) ORDER BY seq DESC LIMIT $\(binds.count)"
        var runs: [HookRun] = []
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger)
        for try await (seq, hook, requestId, startedAt, durationMilliseconds, outcome, error, lines, droppedLines) in rows.decode(
            (Int64, String, String, Double, Double, String, String?, String, Int).self)
        {
            runs.append(
                HookRun(
                    sequence: seq, hook: hook, requestId: requestId,
                    startedAt: Date(timeIntervalSince1970: startedAt), duration: .microseconds(Int64((durationMilliseconds * 1000).rounded())),
                    outcome: HookOutcome(rawValue: outcome) ?? .error, error: error,
                    lines: (try JSONParser.parse(lines).arrayValue ?? []).map(HookRun.Line.init(json:)), droppedLines: droppedLines))
        }
        return runs.reversed()
    }
}
