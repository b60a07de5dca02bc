import Cloudlet
import CloudletSQLite
import Foundation
import GRDB

/// The host's own database (`host.sqlite`): the app registry (apps, their settings and keys) and
/// the operator key's hash.
final class HostDatabase: Sendable {
    /// The connection that reads and writes.
    let queue: DatabaseQueue
    /// A second connection that only asks `PRAGMA data_version`, which changes when another connection
    /// (this process's `queue`, a `cloudlet apps` command) commits.
    private let watcher: DatabaseQueue

    /// Opens (creating if needed) the host database at `path` and brings its schema up to date.
    init(path: String) throws {
        SQLiteProcessSettings.apply()
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(queue)
        watcher = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A number that changes whenever the database was changed through another connection.
    func dataVersion() throws -> Int {
        try watcher.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("apps") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY, client_key TEXT NOT NULL, master_key TEXT NOT NULL, created_at TEXT NOT NULL
                    )
                    """)
        }
        migrator.registerMigration("registry") { db in
            let existing = try Row.fetchAll(db, sql: "SELECT id, client_key, master_key, created_at FROM apps")
            try db.execute(
                sql: """
                    DROP TABLE apps;
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY, hooks_executable TEXT NOT NULL, isolation TEXT NOT NULL, workers INTEGER NOT NULL,
                        worker_memory_mb INTEGER NOT NULL, max_hook_time_limit_ms INTEGER NOT NULL, rate_limits TEXT NOT NULL,
                        push TEXT, files TEXT, job_schedules TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
                    );
                    CREATE TABLE app_keys (
                        app TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('client', 'master')),
                        value TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('active', 'retiring')),
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX app_keys_by_app ON app_keys (app);
                    CREATE TABLE host_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
            // Apps from before the registry keep their keys (the master key now hashed) and get the
            // default settings.
            for row in existing {
                let id: String = row["id"], createdAt: String = row["created_at"]
                try AppRegistry.insertApp(id, settings: AppSettings(), at: createdAt, db)
                try AppRegistry.insertKey(id, .client, value: row["client_key"], at: createdAt, db)
                try AppRegistry.insertKey(id, .master, value: HexBytes.encode(AppKeys.hash(row["master_key"])), at: createdAt, db)
            }
        }
        migrator.registerMigration("push") { db in
            // A registry made before push settings existed gets the column; NULL reads as the
            // default push settings (the log provider for every device type).
            guard try !db.columns(in: "apps").contains(where: { $0.name == "push" }) else { return }
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN push TEXT")
        }
        migrator.registerMigration("files") { db in
            // NULL reads as the default file settings (20 MiB uploads, no session needed).
            guard try !db.columns(in: "apps").contains(where: { $0.name == "files" }) else { return }
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN files TEXT")
        }
        migrator.registerMigration("jobSchedules") { db in
            // A registry made before job schedules existed gets the column; NULL reads as none.
            guard try !db.columns(in: "apps").contains(where: { $0.name == "job_schedules" }) else { return }
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN job_schedules TEXT")
        }
        return migrator
    }
}
