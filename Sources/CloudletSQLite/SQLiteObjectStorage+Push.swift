import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The app's push jobs' fan-out, beside its objects: `push_jobs` (each `_PushStatus` job's fan-out:
/// phase, cursor, count) and `push_job_counts` (ended deliveries by outcome, device type and
/// reason: a job's pending deliveries are its count less these). The deliveries themselves are rows
/// of `work_queue` (``WorkKind/pushDelivery``), their details in the payload. A trigger enters
/// every new `_PushStatus` object in `push_jobs` and queues its fan-out in the transaction that
/// records it, whatever wrote it.
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

    /// Carries the deliveries `push_deliveries` still has pending into the work queue (a claimed one
    /// due at once, its interrupted attempt not counted), queues the fan-out of every job not
    /// finished, drops the table and what only its claims used (`push_jobs`' wake time), and has the
    /// trigger queue each new job's fan-out. Registered after `work_queue`.
    static func registerQueuedPushDeliveries(_ migrator: inout DatabaseMigrator) {
        let kind = WorkKind.pushDelivery.rawValue
        let fanOut = PushDelivery.fanOutPrefix
        migrator.registerMigration("push_deliveries_queued") { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO work_queue (id, kind, payload, due, attempts)
                        SELECT 'push-' || job_id || '-' || installation_id, '\(kind)',
                            json_object('job', job_id, 'installation', installation_id, 'deviceType', device_type, 'token', token,
                                'pushType', push_type, 'badge', badge, 'key', key),
                            CASE WHEN lease_until IS NULL THEN due_at ELSE 0 END, attempts - (lease_until IS NOT NULL)
                        FROM push_deliveries WHERE state = 'pending' ORDER BY seq;
                    INSERT OR IGNORE INTO work_queue (id, kind, payload, due)
                        SELECT '\(fanOut)' || job_id, '\(kind)', json_object('job', job_id), 0 FROM push_jobs WHERE phase != 'finished';
                    DROP TABLE push_deliveries;
                    DROP INDEX push_jobs_active;
                    ALTER TABLE push_jobs DROP COLUMN wake_at;
                    DROP TRIGGER push_job_recorded;
                    CREATE TRIGGER push_job_recorded AFTER INSERT ON objects WHEN NEW.class = '_PushStatus' BEGIN
                        INSERT OR IGNORE INTO push_jobs (job_id) VALUES (NEW.id);
                        INSERT OR IGNORE INTO work_queue (id, kind, payload, due)
                            VALUES ('\(fanOut)' || NEW.id, '\(kind)', json_object('job', NEW.id), 0);
                    END;
                    """)
        }
    }

    /// Signals ``workQueued`` once the transaction of `db` commits, if `object` is a push job (whose
    /// fan-out the trigger queued).
    func noteInserted(_ object: ParseObject, _ db: Database) {
        guard object.className == "_PushStatus" else { return }
        db.afterNextTransaction { [workQueued] _ in workQueued.signal() }
    }

    public func pushJobProgress(_ id: String) async throws -> PushJobProgress? {
        try await pool.read { db in try Self.progress(of: id, db) }
    }

    /// How job `id`'s fan-out stands, in the transaction of `db`.
    static func progress(of id: String, _ db: Database) throws -> PushJobProgress? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT cursor, expanded, phase = 'finished',
                        count - (SELECT coalesce(sum(n), 0) FROM push_job_counts c WHERE c.job_id = j.job_id) AS pending
                    FROM push_jobs j WHERE job_id = ?
                    """),
            arguments: [id]
        ).map { PushJobProgress(jobId: id, cursor: $0[0], isExpanded: $0[1], isFinished: $0[2], pending: $0[3]) }
    }

    public func schedulePushJob(_ id: String, now: Date) async throws {
        try await write { db in
            try self.setPushStatus(id, ["status": .string(PushJobStatus.scheduled.rawValue)], now: now, db)
        }
    }

    public func startPushJob(_ id: String, now: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE push_jobs SET phase = 'running' WHERE job_id = ? AND phase != 'finished'", arguments: [id])
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
        let kind = WorkKind.pushDelivery.rawValue
        try await write { db in
            guard try Self.progress(of: id, db)?.isFinished == false else { return }
            if badgeIncrement != nil, !recipients.isEmpty {
                try self.schema.check(ParseObject(className: "_Installation", fields: ["badge": 1]), db)
            }
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO work_queue (id, kind, payload, due) VALUES (?, ?, ?, ?)")
            var added = 0
            for recipient in recipients {
                guard let token = recipient.token else { continue }
                var payload: [String: ParseValue] = [
                    "job": .string(id), "installation": .string(recipient.installationId), "deviceType": .string(recipient.deviceType),
                    "token": .string(token), "key": .string(RandomUUID.string()),
                ]
                if let pushType = recipient.pushType { payload["pushType"] = .string(pushType) }
                let workId = PushDelivery.workId(job: id, installation: recipient.installationId)
                try insert.execute(arguments: [workId, kind, JSONWriter.string(.object(payload)), now.timeIntervalSince1970])
                guard db.changesCount > 0 else { continue }
                added += 1
                if let badgeIncrement { try Self.incrementBadge(of: recipient.installationId, by: badgeIncrement, delivery: workId, db) }
            }
            try db.cachedStatement(sql: "UPDATE push_jobs SET cursor = ?, expanded = ?, count = count + ? WHERE job_id = ?")
                .execute(arguments: [cursor, isLast, added, id])
            try self.updatePushCounts(of: id, now: now, db)
        }
        workQueued.signal()
    }

    /// Raises the `badge` of installation `id` by `amount` (from 0 when it has no number) and gives the
    /// result to delivery `sequence`. The installation's `updatedAt` stays as it is: a badge is not
    /// a new registration (see ``PushDeliveryResolution/invalidToken(reason:unregisteredAt:)``).
    private static func incrementBadge(of id: String, by amount: Int, delivery workId: String, _ db: Database) throws {
        let badge = try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    UPDATE objects SET data = json_set(data, '$.badge',
                        CASE WHEN json_type(data, '$.badge') IN ('integer', 'real') THEN CAST(json_extract(data, '$.badge') AS INTEGER) + ?1 ELSE ?1 END)
                    WHERE class = '_Installation' AND id = ?2 RETURNING CAST(json_extract(data, '$.badge') AS INTEGER)
                    """),
            arguments: [amount, id])
        try db.cachedStatement(sql: "UPDATE work_queue SET payload = json_set(payload, '$.badge', ?) WHERE id = ?")
            .execute(arguments: [badge, workId])
    }

    public func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws {
        try await write { db in try self.finishPushJob(id, ending, now: now, db) }
    }
}
