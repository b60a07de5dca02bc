import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The app's push deliveries, beside its objects: `push_jobs` (each `_PushStatus` job's fan-out:
/// phase, cursor, count), `push_deliveries` (one row per job and installation, claimed with a
/// lease) and `push_job_counts` (ended deliveries by outcome, device type and reason: a job's
/// pending deliveries are its count less these). A trigger enters every new `_PushStatus` object
/// in `push_jobs`, so that the service finds new jobs with one indexed query, whatever wrote them.
/// Each delivery row is written three times (fan-out, claim, outcome), so it has as few indexes
/// as the queries need: its job and installation (one delivery each) and the due pending ones.
extension SQLiteObjectStorage: PushDeliveryStorage {
    static func registerPushTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("push_deliveries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE push_jobs (
                        job_id TEXT PRIMARY KEY, phase TEXT NOT NULL DEFAULT 'recorded', wake_at REAL,
                        cursor TEXT, expanded INTEGER NOT NULL DEFAULT 0, count INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID;
                    CREATE INDEX push_jobs_active ON push_jobs (phase, wake_at) WHERE phase != 'finished';
                    CREATE TABLE push_deliveries (
                        seq INTEGER PRIMARY KEY, job_id TEXT NOT NULL, installation_id TEXT NOT NULL,
                        device_type TEXT NOT NULL, token TEXT NOT NULL, push_type TEXT, badge INTEGER,
                        key TEXT NOT NULL UNIQUE, state TEXT NOT NULL DEFAULT 'pending',
                        attempts INTEGER NOT NULL DEFAULT 0, due_at REAL NOT NULL, lease_until REAL, reason TEXT,
                        UNIQUE (job_id, installation_id)
                    );
                    CREATE INDEX push_deliveries_due ON push_deliveries (due_at) WHERE state = 'pending';
                    CREATE INDEX push_deliveries_pending ON push_deliveries (job_id) WHERE state = 'pending';
                    CREATE TABLE push_job_counts (
                        job_id TEXT NOT NULL, sent INTEGER NOT NULL, device_type TEXT NOT NULL, reason TEXT NOT NULL,
                        n INTEGER NOT NULL, PRIMARY KEY (job_id, sent, device_type, reason)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER push_job_recorded AFTER INSERT ON objects WHEN NEW.class = '_PushStatus'
                    BEGIN INSERT OR IGNORE INTO push_jobs (job_id) VALUES (NEW.id); END;
                    INSERT OR IGNORE INTO push_jobs (job_id)
                        SELECT id FROM objects WHERE class = '_PushStatus'
                        AND json_extract(data, '$.status') IN ('pending', 'scheduled', 'running');
                    """)
        }
    }

    /// Rebuilds `push_deliveries` with two indexes fewer to update for every row: a delivery's key
    /// is a random UUID (unique without an index), and pending deliveries are counted from
    /// `push_job_counts`. Registered after every earlier migration, which a database made before
    /// it has applied.
    static func registerLeanPushDeliveries(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("push_deliveries_lean") { db in
            try db.execute(
                sql: """
                    CREATE TABLE push_deliveries_lean (
                        seq INTEGER PRIMARY KEY, job_id TEXT NOT NULL, installation_id TEXT NOT NULL,
                        device_type TEXT NOT NULL, token TEXT NOT NULL, push_type TEXT, badge INTEGER,
                        key TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending',
                        attempts INTEGER NOT NULL DEFAULT 0, due_at REAL NOT NULL, lease_until REAL, reason TEXT,
                        UNIQUE (job_id, installation_id)
                    );
                    INSERT INTO push_deliveries_lean SELECT
                        seq, job_id, installation_id, device_type, token, push_type, badge, key, state, attempts, due_at, lease_until, reason
                        FROM push_deliveries;
                    DROP TABLE push_deliveries;
                    ALTER TABLE push_deliveries_lean RENAME TO push_deliveries;
                    CREATE INDEX push_deliveries_due ON push_deliveries (due_at) WHERE state = 'pending';
                    """)
        }
    }

    public func releasePushLeases(now: Date) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE push_deliveries INDEXED BY push_deliveries_due SET due_at = ?, lease_until = NULL
                    WHERE state = 'pending' AND lease_until IS NOT NULL
                    """,
                arguments: [now.timeIntervalSince1970])
        }
    }

    public func lastWrittenAt() -> Date? {
        // In WAL mode every commit writes the log; a checkpoint then writes the database file.
        [path + "-wal", path].compactMap(FileModification.time(of:)).max()
    }

    public func nextScheduledPushJob() async throws -> Date? {
        try await pool.read { db in
            try Double.fetchOne(db, sql: "SELECT min(wake_at) FROM push_jobs WHERE phase = 'scheduled'")
        }.map(Date.init(timeIntervalSince1970:))
    }

    /// Signals ``pushJobRecorded`` once the transaction of `db` commits, if `object` is a push job.
    func noteInserted(_ object: ParseObject, _ db: Database) {
        guard object.className == "_PushStatus" else { return }
        db.afterNextTransaction { [pushJobRecorded] _ in pushJobRecorded.signal() }
    }

    public func pushJobsToStart(now: Date, limit: Int) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT job_id FROM push_jobs WHERE phase = 'recorded'
                    UNION ALL SELECT job_id FROM push_jobs WHERE phase = 'scheduled' AND wake_at <= ?
                    LIMIT ?
                    """,
                arguments: [now.timeIntervalSince1970, limit])
        }
    }

    public func runningPushJobs(limit: Int) async throws -> [PushJobProgress] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT job_id, cursor, expanded,
                        count - (SELECT coalesce(sum(n), 0) FROM push_job_counts c WHERE c.job_id = j.job_id) AS pending
                    FROM push_jobs j WHERE phase = 'running' LIMIT ?
                    """,
                arguments: [limit]
            ).map { PushJobProgress(jobId: $0[0], cursor: $0[1], isExpanded: $0[2], pending: $0[3]) }
        }
    }

    public func schedulePushJob(_ id: String, at time: Date, now: Date) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE push_jobs SET phase = 'scheduled', wake_at = ? WHERE job_id = ?", arguments: [time.timeIntervalSince1970, id])
            try self.setPushStatus(id, ["status": .string(PushJobStatus.scheduled.rawValue)], now: now, db)
        }
    }

    public func startPushJob(_ id: String, now: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE push_jobs SET phase = 'running', wake_at = NULL WHERE job_id = ?", arguments: [id])
            try self.setPushStatus(id, ["status": .string(PushJobStatus.running.rawValue)], now: now, db)
        }
    }

    public func pushRecipients(_ page: ParseQuery) async throws -> [PushRecipient] {
        let select = try SQLiteQueryBuilder.select(
            StorageQuery(query: page, readerIdentities: nil),
            columns: "id, \(Self.textField("deviceType")), \(Self.textField("deviceToken")), \(Self.textField("pushType"))")
        return try await pool.read { db in
            try SQLiteRegex.running(select.patterns, steps: self.regexStepsPerQuery) {
                var recipients: [PushRecipient] = []
                let rows = try Row.fetchCursor(db, sql: select.sql, arguments: select.arguments)
                while let row = try rows.next() {
                    recipients.append(PushRecipient(installationId: row[0], deviceType: row[1] ?? "", token: row[2], pushType: row[3]))
                }
                return recipients
            }
        }
    }

    /// The SQL of an installation's field `name` when it is a string, else NULL.
    private static func textField(_ name: String) -> String {
        "CASE json_type(data, '$.\(name)') WHEN 'text' THEN json_extract(data, '$.\(name)') END"
    }

    public func expandPushJob(
        _ id: String, recipients: [PushRecipient], cursor: String?, isLast: Bool, badgeIncrement: Int?, now: Date
    ) async throws {
        let due = now.timeIntervalSince1970
        try await write { db in
            if badgeIncrement != nil, !recipients.isEmpty {
                try self.schema.check(ParseObject(className: "_Installation", fields: ["badge": 1]), db)
            }
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO push_deliveries (job_id, installation_id, device_type, token, push_type, key, due_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
            var added = 0
            for recipient in recipients {
                guard let token = recipient.token else { continue }
                try insert.execute(arguments: [
                    id, recipient.installationId, recipient.deviceType, token, recipient.pushType, RandomUUID.string(), due,
                ])
                guard db.changesCount > 0 else { continue }
                added += 1
                if let badgeIncrement {
                    try Self.incrementBadge(of: recipient.installationId, by: badgeIncrement, delivery: db.lastInsertedRowID, db)
                }
            }
            try db.cachedStatement(sql: "UPDATE push_jobs SET cursor = ?, expanded = ?, count = count + ? WHERE job_id = ?")
                .execute(arguments: [cursor, isLast, added, id])
            try self.setPushCounts(of: id, status: nil, errorMessage: nil, now: now, db)
        }
    }

    /// Raises the `badge` of installation `id` by `amount` (from 0 when it has no number) and gives the
    /// result to delivery `sequence`. The installation's `updatedAt` stays as it is: a badge is not
    /// a new registration (see ``PushDeliveryResolution/invalidToken(reason:unregisteredAt:)``).
    private static func incrementBadge(of id: String, by amount: Int, delivery sequence: Int64, _ db: Database) throws {
        let badge = try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    UPDATE objects SET data = json_set(data, '$.badge',
                        CASE WHEN json_type(data, '$.badge') IN ('integer', 'real') THEN CAST(json_extract(data, '$.badge') AS INTEGER) + ?1 ELSE ?1 END)
                    WHERE class = '_Installation' AND id = ?2 RETURNING CAST(json_extract(data, '$.badge') AS INTEGER)
                    """),
            arguments: [amount, id])
        try db.cachedStatement(sql: "UPDATE push_deliveries SET badge = ? WHERE seq = ?").execute(arguments: [badge, sequence])
    }

    public func claimPushDeliveries(now: Date, leaseUntil: Date, limit: Int) async throws -> PushDeliveryClaim {
        try await write { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        UPDATE push_deliveries SET due_at = ?1, lease_until = ?1, attempts = attempts + 1
                        WHERE seq IN (SELECT seq FROM push_deliveries WHERE state = 'pending' AND due_at <= ?2 ORDER BY due_at LIMIT ?3)
                        RETURNING seq, job_id, installation_id, device_type, token, push_type, badge, key, attempts
                        """),
                arguments: [leaseUntil.timeIntervalSince1970, now.timeIntervalSince1970, limit])
            var claimed: [PushDelivery] = []
            claimed.reserveCapacity(limit)
            // Each row read where it is (a cursor copies none), by position: a name is looked up without regard to case.
            while let row = try rows.next() {
                claimed.append(
                    PushDelivery(
                        sequence: row[0], jobId: row[1], installationId: row[2], deviceType: row[3], token: row[4], pushType: row[5],
                        badge: row[6], key: row[7], attempts: row[8], leaseUntil: leaseUntil))
            }
            guard claimed.count < limit else { return PushDeliveryClaim(deliveries: claimed, nextDueAt: nil) }
            let nextDue = try Double.fetchOne(
                db.cachedStatement(
                    sql: "SELECT due_at FROM push_deliveries INDEXED BY push_deliveries_due WHERE state = 'pending' ORDER BY due_at LIMIT 1"))
            return PushDeliveryClaim(deliveries: claimed, nextDueAt: nextDue.map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws {
        try await write { db in try self.finishPushJob(id, ending, now: now, db) }
    }
}
