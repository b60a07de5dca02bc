import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// ``PushDeliveryStorage`` in the app's schema, as the SQLite store keeps it: `push_jobs` (each
/// `_PushStatus` job's fan-out: phase, cursor, count) and `push_job_counts` (ended deliveries by
/// outcome, device type and reason: a job's pending deliveries are its count less these). The
/// deliveries are rows of the shared `work_queue`, one per recipient, which any node claims with
/// `FOR UPDATE SKIP LOCKED`: a push to N devices is sent N times, whatever the number of nodes. A
/// trigger enters every new `_PushStatus` object in `push_jobs` and queues its fan-out in the
/// transaction that stores it, whatever wrote it.
///
/// Every transaction about a job locks its row of `push_jobs` first, so that two nodes expanding
/// the job and recording its outcomes take turns on it: a page queued twice adds no delivery, and
/// the counts, read after the lock, see every outcome committed before.
public struct PostgresPushStore: PushDeliveryStorage {
    let objects: PostgresObjectStore
    var schema: PostgresAppSchema { objects.schema }
    var logger: Logger { objects.database.logger }
    var jobs: String { schema.quoted + ".push_jobs" }
    var counts: String { schema.quoted + ".push_job_counts" }
    var work: String { PostgresWorkQueue.table(schema) }

    /// The push jobs' fan-out of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        objects = try await PostgresObjectStore(database, schema: schema)
    }

    /// The tables and the trigger that queues each new job's fan-out, as a change of the schema.
    static let migration = PostgresMigrations.Migration(
        name: "push_jobs",
        statements: [
            """
            CREATE TABLE {schema}.push_jobs (
                job_id text PRIMARY KEY, phase text NOT NULL DEFAULT 'recorded', cursor text, expanded boolean NOT NULL DEFAULT false,
                count integer NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE {schema}.push_job_counts (
                job_id text NOT NULL, sent boolean NOT NULL, device_type text NOT NULL, reason text NOT NULL, n integer NOT NULL,
                PRIMARY KEY (job_id, sent, device_type, reason)
            )
            """,
            """
            CREATE FUNCTION {schema}.push_job_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO {schema}.push_jobs (job_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
                INSERT INTO {schema}.work_queue (id, kind, payload, due)
                    VALUES ('\(PushDelivery.fanOutPrefix)' || NEW.id, '\(WorkKind.pushDelivery.rawValue)', json_build_object('job', NEW.id)::text, to_timestamp(0))
                    ON CONFLICT (id) DO NOTHING;
                PERFORM pg_notify('\(PostgresNotifications.channel)', 'work ' || TG_TABLE_SCHEMA);
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER push_job_recorded AFTER INSERT ON {schema}.objects
                FOR EACH ROW WHEN (NEW.class = '_PushStatus') EXECUTE FUNCTION {schema}.push_job_recorded()
            """,
        ])

    public func pushJobProgress(_ id: String) async throws -> PushJobProgress? {
        try await objects.database.client.withConnection { connection in try await progress(of: id, locking: false, on: connection) }
    }

    /// How job `id`'s fan-out stands; with `locking`, its row locked until the transaction ends.
    func progress(of id: String, locking: Bool, on connection: PostgresConnection) async throws -> PushJobProgress? {
        let sql = """
            SELECT cursor, expanded, phase = 'finished', count - (SELECT coalesce(sum(n), 0) FROM \(counts) c WHERE c.job_id = j.job_id)
            FROM \(jobs) j WHERE job_id = $1 \(locking ? "FOR UPDATE OF j" : "")
            """
        for try await (cursor, expanded, finished, pending) in try await connection.run(sql, PostgresBindings(id), logger: logger)
            .decode((String?, Bool, Bool, Int).self)
        {
            return PushJobProgress(jobId: id, cursor: cursor, isExpanded: expanded, isFinished: finished, pending: pending)
        }
        return nil
    }

    public func schedulePushJob(_ id: String, now: Date) async throws {
        try await objects.writer.write { connection, afterCommit in
            try await connection.run("SELECT 1 FROM \(jobs) WHERE job_id = $1 FOR UPDATE", PostgresBindings(id), logger: logger)
            try await setPushStatus(id, ["status": .string(PushJobStatus.scheduled.rawValue)], now: now, on: connection, afterCommit: &afterCommit)
        }
    }

    public func startPushJob(_ id: String, now: Date) async throws {
        try await objects.writer.write { connection, afterCommit in
            try await connection.run("UPDATE \(jobs) SET phase = 'running' WHERE job_id = $1 AND phase <> 'finished'", PostgresBindings(id), logger: logger)
            try await setPushStatus(id, ["status": .string(PushJobStatus.running.rawValue)], now: now, on: connection, afterCommit: &afterCommit)
        }
    }

    public func pushRecipients(_ page: ParseQuery) async throws -> [PushRecipient] {
        var compiler = PostgresQueryCompiler(schema: schema)
        let columns = ["deviceType", "deviceToken", "pushType"].map { "CASE WHEN jsonb_typeof(data -> '\($0)') = 'string' THEN data ->> '\($0)' END" }
        let sql = try compiler.select(StorageQuery(query: page, readerIdentities: nil), columns: "id, " + columns.joined(separator: ", "))
        return try await objects.bounded(compiler) { connection in
            var recipients: [PushRecipient] = []
            let rows = try await connection.run(sql, compiler.binds, logger: logger)
            for try await (id, deviceType, token, pushType) in rows.decode((String, String?, String?, String?).self) {
                recipients.append(PushRecipient(installationId: id, deviceType: deviceType ?? "", token: token, pushType: pushType))
            }
            return recipients
        }
    }

    public func expandPushJob(
        _ id: String, recipients: [PushRecipient], cursor: String?, isLast: Bool, badgeIncrement: Int?, now: Date
    ) async throws {
        try await objects.writer.write { connection, afterCommit in
            guard let progress = try await progress(of: id, locking: true, on: connection), !progress.isFinished else { return }
            if badgeIncrement != nil, !recipients.isEmpty,
                let commit = try await objects.fieldTypes.check(ParseObject(className: "_Installation", fields: ["badge": 1]), on: connection, logger: logger)
            {
                afterCommit.append(commit)
            }
            let added = try await queueDeliveries(of: id, to: recipients, after: progress.cursor, now: now, on: connection)
            if let badgeIncrement, !added.isEmpty { try await incrementBadges(added, by: badgeIncrement, on: connection) }
            var binds = PostgresBindings()
            binds.append(cursor)
            binds.append(isLast)
            binds.append(added.count)
            binds.append(id)
            // A page another node queued already moves neither the cursor back nor the job's end away.
            try await connection.run(
                """
                UPDATE \(jobs) SET cursor = CASE WHEN $1::text IS NULL OR cursor COLLATE "C" >= $1 THEN cursor ELSE $1 END,
                    expanded = expanded OR $2, count = count + $3 WHERE job_id = $4
                """, binds, logger: logger)
            try await updatePushCounts(of: id, now: now, on: connection, afterCommit: &afterCommit)
            if !added.isEmpty {
                try await PostgresNotifications.notify(PostgresWorkQueue.topic(schema), on: connection, logger: logger)
            }
        }
    }

    /// Queues a delivery of job `id` to each of `recipients` with a token that sorts after the job's
    /// `cursor` (a recipient at or before it had its delivery queued by an earlier page) and has no
    /// delivery of the job still queued. Answers the installations given one, by their rows' ids.
    private func queueDeliveries(
        of id: String, to recipients: [PushRecipient], after cursor: String?, now: Date, on connection: PostgresConnection
    ) async throws -> [String: String] {
        var installations: [String: String] = [:]
        var rows: (ids: [String], payloads: [String], installations: [String]) = ([], [], [])
        for recipient in recipients {
            guard let token = recipient.token else { continue }
            var payload: [String: ParseValue] = [
                "job": .string(id), "installation": .string(recipient.installationId), "deviceType": .string(recipient.deviceType),
                "token": .string(token), "key": .string(RandomUUID.string()),
            ]
            if let pushType = recipient.pushType { payload["pushType"] = .string(pushType) }
            let workId = PushDelivery.workId(job: id, installation: recipient.installationId)
            installations[workId] = recipient.installationId
            rows.ids.append(workId)
            rows.payloads.append(JSONWriter.string(.object(payload)))
            rows.installations.append(recipient.installationId)
        }
        guard !rows.ids.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(rows.ids)
        binds.append(rows.payloads)
        binds.append(rows.installations)
        binds.append(WorkKind.pushDelivery.rawValue)
        binds.append(now)
        binds.append(cursor)
        let inserted = try await connection.run(
            """
            INSERT INTO \(work) (id, kind, payload, due)
            SELECT w.id, $4, w.payload, $5 FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS w (id, payload, installation, n)
            WHERE $6::text IS NULL OR w.installation COLLATE "C" > $6 ORDER BY w.n
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, binds, logger: logger)
        var added: [String: String] = [:]
        for try await workId in inserted.decode(String.self) { added[workId] = installations[workId] }
        return added
    }

    /// Raises the `badge` of the installations `deliveries` go to (by their rows' ids) by `amount`
    /// (from 0 when it holds no number) and gives each delivery the result. An installation's
    /// `updatedAt` stays as it is: a badge is not a new registration.
    private func incrementBadges(_ deliveries: [String: String], by amount: Int, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(amount)
        binds.append(Array(deliveries.values))
        let badges = try await objects.notifyingLiveUpdates(of: "_Installation", ids: Array(deliveries.values), on: connection) {
            let rows = try await connection.run(
                """
                UPDATE \(objects.table) SET data = jsonb_set(data, '{badge}', to_jsonb(
                    CASE WHEN jsonb_typeof(data -> 'badge') = 'number' THEN trunc((data ->> 'badge')::numeric)::bigint + $1 ELSE $1 END))
                WHERE class = '_Installation' AND id = ANY($2) RETURNING id, (data ->> 'badge')::bigint
                """, binds, logger: logger)
            var badges: [String: Int] = [:]
            for try await (installation, badge) in rows.decode((String, Int).self) { badges[installation] = badge }
            return badges
        }
        let given = deliveries.compactMap { workId, installation in badges[installation].map { (workId, $0) } }
        guard !given.isEmpty else { return }
        var update = PostgresBindings()
        update.append(given.map(\.0))
        update.append(given.map(\.1))
        try await connection.run(
            """
            UPDATE \(work) AS work SET payload = (work.payload::jsonb || jsonb_build_object('badge', b.badge))::text
            FROM unnest($1::text[], $2::bigint[]) AS b (id, badge) WHERE work.id = b.id
            """, update, logger: logger)
    }
}
