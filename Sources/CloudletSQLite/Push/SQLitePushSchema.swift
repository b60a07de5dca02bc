import CloudletRuntime
import GRDB

/// The tables of the app's push jobs' fan-out (see ``SQLitePushStore``), as they came to be: each
/// step registered where ``SQLiteMigrations`` lists it.
enum SQLitePushSchema {
    /// `push_jobs`, `push_job_counts`, the first `push_deliveries`, and the trigger that enters
    /// every new `_PushStatus` object in `push_jobs`.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
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
    static func registerLeanDeliveries(_ migrator: inout DatabaseMigrator) {
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
    static func registerQueuedDeliveries(_ migrator: inout DatabaseMigrator) {
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
}
