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
            // default settings, in the columns of the time ("settingsDocument" moves them).
            let defaults = AppSettings().json
            for row in existing {
                let id: String = row["id"], createdAt: String = row["created_at"]
                try db.execute(
                    sql: """
                        INSERT INTO apps (id, hooks_executable, isolation, workers, worker_memory_mb, max_hook_time_limit_ms, rate_limits,
                        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, defaults["hooks"]?.stringValue, defaults["isolation"]?.stringValue, defaults["workers"]?.intValue,
                        defaults["workerMemoryMb"]?.intValue, defaults["maxHookTimeLimitMs"]?.intValue,
                        defaults["rateLimits"].map(JSONWriter.string), createdAt, createdAt,
                    ])
                try SQLiteRegistryStorage.insertKey(id, .client, value: row["client_key"], at: createdAt, db)
                try SQLiteRegistryStorage.insertKey(id, .master, value: HexBytes.encode(AppKeys.hash(row["master_key"])), at: createdAt, db)
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
        migrator.registerMigration("settingsDocument") { db in try moveSettingsIntoOneDocument(db) }
        return migrator
    }

    /// The columns of settings before they were one document: their members in it, and whether
    /// they held text, a whole number or JSON.
    private static let settingsColumns: [(column: String, member: String, form: ColumnForm)] = [
        ("hooks_executable", "hooks", .text), ("isolation", "isolation", .text), ("workers", "workers", .integer),
        ("worker_memory_mb", "workerMemoryMb", .integer), ("max_hook_time_limit_ms", "maxHookTimeLimitMs", .integer),
        ("rate_limits", "rateLimits", .json), ("push", "push", .json), ("files", "files", .json), ("job_schedules", "jobSchedules", .json),
    ]

    private enum ColumnForm { case text, integer, json }

    /// Moves each app's settings from their columns into the `settings` document, then drops the
    /// columns. A NULL column (push, files and schedules never set) leaves its member to the default.
    private static func moveSettingsIntoOneDocument(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'")
        for row in try Row.fetchAll(db, sql: "SELECT * FROM apps") {
            var document: [String: ParseValue] = [:]
            for (column, member, form) in settingsColumns {
                switch form {
                case .text: document[member] = (row[column] as String?).map(ParseValue.string)
                case .integer: document[member] = (row[column] as Int64?).map { .number(Double($0)) }
                case .json: document[member] = try (row[column] as String?).map { try JSONParser.parse($0) }
                }
            }
            let id: String = row["id"]
            try db.execute(sql: "UPDATE apps SET settings = ? WHERE id = ?", arguments: [JSONWriter.string(.object(document)), id])
        }
        for (column, _, _) in settingsColumns { try db.execute(sql: "ALTER TABLE apps DROP COLUMN \(column)") }
    }
}
