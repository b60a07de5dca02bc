import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// ``JobStorage`` in the app's schema, as the SQLite store keeps it: job runs as `_JobStatus`
/// objects in `objects`, each queued in the work queue in the transaction that starts it, and
/// schedules in `job_schedules`.
///
/// Where SQLite's one writer makes two starts take turns, here a start takes an advisory lock on
/// the app's job runs for its transaction: two nodes starting runs at once cannot both pass the
/// bound on runs at once, nor both start an exclusive job.
public struct PostgresJobStore: JobStorage {
    private let objects: PostgresObjectStore
    private let schema: PostgresAppSchema

    /// The job runs and schedules of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        objects = try await PostgresObjectStore(database, schema: schema)
        self.schema = schema
    }

    /// The table of schedules, as a change of the schema.
    static let migration = PostgresMigrations.Migration(
        name: "job_schedules",
        statements: [
            """
            CREATE TABLE {schema}.job_schedules (
                job text PRIMARY KEY, expression text NOT NULL, handled_through float8 NOT NULL, last_run_at float8, last_status_id text,
                skipped_runs integer NOT NULL DEFAULT 0
            )
            """
        ])

    private var logger: Logger { objects.database.logger }

    public func recordJobStart(_ status: ParseObject, work: NewWork, maximumRunning: Int, exclusive: Bool) async throws -> JobStartOutcome {
        let row = ObjectText(status)
        try objects.checkSize(row)
        let jobName = status.fields["jobName"]?.stringValue ?? ""
        let queued = PostgresWorkRow(id: work.id, kind: work.kind, payload: JSONWriter.string(work.payload), due: work.due, heldBy: work.heldBy)
        return try await objects.writer.write { connection, afterCommit in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("cloudlet jobs " + schema.name), 0))", logger: logger)
            var binds = PostgresBindings()
            binds.append(JobStatus.className)
            binds.append(JobStatus.State.running.rawValue)
            var running: [String] = []
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT coalesce(data ->> 'jobName', '') FROM \(objects.table) WHERE class = $1 AND data ->> 'status' = $2", binds: binds),
                logger: logger)
            for try await job in rows.decode(String.self) { running.append(job) }
            if exclusive, running.contains(jobName) { return .alreadyRunning }
            guard running.count < maximumRunning else { return .tooManyRunning }
            try await objects.insertRow(status, row, on: connection, afterCommit: &afterCommit)
            try await PostgresWorkQueue.queue(
                [queued], in: PostgresWorkQueue.table(schema), topic: PostgresWorkQueue.topic(schema), on: connection, logger: logger)
            return .started
        }
    }

    @discardableResult
    public func updateRunningJob(_ id: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool {
        try await objects.writer.write { connection, afterCommit in
            guard let original = try await objects.lockedObject(JobStatus.className, id, on: connection),
                original.fields["status"]?.stringValue == JobStatus.State.running.rawValue
            else { return false }
            var status = original
            status.fields.merge(fields) { _, new in new }
            status.updatedAt = updatedAt
            if let commit = try await objects.fieldTypes.check(status, on: connection, logger: logger) { afterCommit.append(commit) }
            let row = ObjectText(status)
            try objects.checkSize(row)
            var binds = PostgresBindings()
            binds.append(row.updatedAt)
            binds.append(row.fields)
            binds.append(JobStatus.className)
            binds.append(id)
            try await connection.query(
                PostgresQuery(unsafeSQL: "UPDATE \(objects.table) SET updated_at = $1, data = $2::jsonb WHERE class = $3 AND id = $4", binds: binds),
                logger: logger)
            try await objects.notifyLive(.update, status, original: original, on: connection)
            if status.fields["status"]?.stringValue != JobStatus.State.running.rawValue { try await pruneEndedJobs(on: connection) }
            return true
        }
    }

    /// Deletes the ended runs older than the newest ``JobStatus/retention`` runs, each told of as
    /// deleted if the app's LiveQuery feed publishes `_JobStatus`.
    private func pruneEndedJobs(on connection: PostgresConnection) async throws {
        let binds = PostgresBindings(JobStatus.className, JobStatus.State.running.rawValue, JobStatus.retention - 1)
        let sql = """
            DELETE FROM \(objects.table) WHERE class = $1 AND data ->> 'status' IS DISTINCT FROM $2 AND created_at COLLATE "C" < (
                SELECT created_at FROM \(objects.table) WHERE class = $1 ORDER BY created_at COLLATE "C" DESC LIMIT 1 OFFSET $3
            )
            """
        guard objects.liveChanges.publishes(JobStatus.className) else {
            try await connection.run(sql, binds, logger: logger)
            return
        }
        let rows = try await connection.run(sql + " RETURNING id, created_at, updated_at, acl::text, data::text", binds, logger: logger)
        var deleted: [ParseObject] = []
        for try await row in rows.decode((String, String, String, String?, String).self) {
            deleted.append(try PostgresObjectStore.object(JobStatus.className, row))
        }
        for object in deleted { try await objects.notifyLive(.delete, object, on: connection) }
    }

    public func jobScheduleStates() async throws -> [String: JobScheduleState] {
        var states: [String: JobScheduleState] = [:]
        let rows = try await objects.database.client.query(
            PostgresQuery(unsafeSQL: "SELECT job, expression, handled_through, last_run_at, last_status_id, skipped_runs FROM \(schema.quoted).job_schedules"),
            logger: logger)
        for try await (job, expression, handledThrough, lastRunAt, lastStatusId, skipped) in rows.decode((String, String, Double, Double?, String?, Int).self) {
            states[job] = JobScheduleState(
                expression: expression, handledThrough: Date(timeIntervalSince1970: handledThrough),
                lastRunAt: lastRunAt.map(Date.init(timeIntervalSince1970:)), lastStatusId: lastStatusId, skippedRuns: skipped)
        }
        return states
    }

    public func saveJobScheduleState(_ state: JobScheduleState, of job: String) async throws {
        var binds = PostgresBindings()
        binds.append(job)
        binds.append(state.expression)
        binds.append(state.handledThrough.timeIntervalSince1970)
        binds.append(state.lastRunAt?.timeIntervalSince1970)
        binds.append(state.lastStatusId)
        binds.append(state.skippedRuns)
        try await objects.database.execute(
            """
            INSERT INTO \(schema.quoted).job_schedules (job, expression, handled_through, last_run_at, last_status_id, skipped_runs)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (job) DO UPDATE SET expression = excluded.expression, handled_through = excluded.handled_through,
            last_run_at = excluded.last_run_at, last_status_id = excluded.last_status_id, skipped_runs = excluded.skipped_runs
            """, binds)
    }

    public func claimJobSchedule(_ job: String, expression: String, handledThrough: Date, now: Date) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(now.timeIntervalSince1970)
        binds.append(job)
        binds.append(expression)
        binds.append(handledThrough.timeIntervalSince1970)
        let claimed = try await objects.database.execute(
            """
            UPDATE \(schema.quoted).job_schedules SET handled_through = $1
            WHERE job = $2 AND expression = $3 AND handled_through = $4 RETURNING job
            """, binds)
        return claimed > 0
    }
}
