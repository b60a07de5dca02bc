import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// ``JobStorage`` in the app's database: job runs as `_JobStatus` objects in the `objects` table,
/// each queued in the work queue as it starts, and schedules in `job_schedules`.
public struct SQLiteJobStore: JobStorage {
    let database: SQLiteAppDatabase

    /// The job runs and schedules of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `job_schedules`: where each schedule stands.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("job_schedules") { db in
            try db.execute(
                sql: """
                    CREATE TABLE job_schedules (
                        job TEXT PRIMARY KEY, expression TEXT NOT NULL, handled_through REAL NOT NULL,
                        last_run_at REAL, last_status_id TEXT, skipped_runs INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID
                    """)
        }
    }

    public func recordJobStart(_ status: ParseObject, work: NewWork, maximumRunning: Int, exclusive: Bool) async throws -> JobStartOutcome {
        let rows = database.objectRows
        let arguments = try rows.arguments(status)
        let jobName = status.fields["jobName"]?.stringValue ?? ""
        let outcome = try await database.writeAlone { db -> JobStartOutcome in
            let running = try Row.fetchAll(
                db, sql: "SELECT json_extract(data, '$.jobName') AS job FROM objects WHERE class = ? AND json_extract(data, '$.status') = ?",
                arguments: [JobStatus.className, JobStatus.State.running.rawValue])
            if exclusive, running.contains(where: { ($0["job"] as String?) == jobName }) { return .alreadyRunning }
            guard running.count < maximumRunning else { return .tooManyRunning }
            try rows.insert(status, arguments, db)
            try SQLiteWorkQueue.enqueue([work], db)
            return .started
        }
        if outcome == .started { database.workQueued.signal() }
        return outcome
    }

    @discardableResult
    public func updateRunningJob(_ id: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool {
        let (schema, rows, database) = (self.database.schema, self.database.objectRows, self.database)
        return try await database.writeAlone { db in
            guard let original = try ObjectRows.fetch(db, JobStatus.className, id),
                original.fields["status"]?.stringValue == JobStatus.State.running.rawValue
            else { return false }
            var status = original
            status.fields.merge(fields) { _, new in new }
            status.updatedAt = updatedAt
            try schema.check(status, db)
            let row = ObjectText(status)
            try rows.checkSize(row)
            try db.execute(
                sql: "UPDATE objects SET updated_at = ?, data = ? WHERE class = ? AND id = ?",
                arguments: [row.updatedAt, row.fields, JobStatus.className, id])
            database.publishLive(.update, status, original: original, db)
            if status.fields["status"]?.stringValue != JobStatus.State.running.rawValue { try database.pruneEndedJobs(db) }
            return true
        }
    }

    public func jobScheduleStates() async throws -> [String: JobScheduleState] {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM job_schedules")
            return Dictionary(
                uniqueKeysWithValues: rows.map { row in
                    let lastRunAt: Double? = row["last_run_at"]
                    return (
                        row["job"] as String,
                        JobScheduleState(
                            expression: row["expression"], handledThrough: Date(timeIntervalSince1970: row["handled_through"]),
                            lastRunAt: lastRunAt.map(Date.init(timeIntervalSince1970:)), lastStatusId: row["last_status_id"],
                            skippedRuns: row["skipped_runs"])
                    )
                })
        }
    }

    public func saveJobScheduleState(_ state: JobScheduleState, of job: String) async throws {
        try await database.writeAlone { db in
            try db.execute(
                sql: """
                    INSERT INTO job_schedules (job, expression, handled_through, last_run_at, last_status_id, skipped_runs)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (job) DO UPDATE SET expression = excluded.expression, handled_through = excluded.handled_through,
                    last_run_at = excluded.last_run_at, last_status_id = excluded.last_status_id, skipped_runs = excluded.skipped_runs
                    """,
                arguments: [
                    job, state.expression, state.handledThrough.timeIntervalSince1970, state.lastRunAt?.timeIntervalSince1970,
                    state.lastStatusId, state.skippedRuns,
                ])
        }
    }

    public func claimJobSchedule(_ job: String, expression: String, handledThrough: Date, now: Date) async throws -> Bool {
        try await database.writeAlone { db in
            try db.execute(
                sql: "UPDATE job_schedules SET handled_through = ? WHERE job = ? AND expression = ? AND handled_through = ?",
                arguments: [now.timeIntervalSince1970, job, expression, handledThrough.timeIntervalSince1970])
            return db.changesCount > 0
        }
    }
}

extension SQLiteAppDatabase {
    /// Deletes the ended runs older than the newest ``JobStatus/retention`` runs, each published
    /// as deleted if the app's LiveQuery feed publishes `_JobStatus`.
    fileprivate func pruneEndedJobs(_ db: Database) throws {
        let sql = """
            DELETE FROM objects WHERE class = ?1 AND json_extract(data, '$.status') != ?2 AND created_at < (
                SELECT created_at FROM objects WHERE class = ?1 ORDER BY created_at DESC LIMIT 1 OFFSET ?3
            )
            """
        let arguments: StatementArguments = [JobStatus.className, JobStatus.State.running.rawValue, JobStatus.retention - 1]
        guard liveChanges.publishes(JobStatus.className) else { return try db.execute(sql: sql, arguments: arguments) }
        for row in try Row.fetchAll(db, sql: sql + " RETURNING id, created_at, updated_at, acl, data", arguments: arguments) {
            publishLive(.delete, try ObjectRows.object(JobStatus.className, row), db)
        }
    }
}
