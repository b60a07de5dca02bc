import Foundation
import GRDB

/// The host's own database (`host.sqlite`): which apps exist and their keys.
public final class HostDatabase: Sendable {
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the host database at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("apps") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY, client_key TEXT NOT NULL, master_key TEXT NOT NULL, created_at TEXT NOT NULL
                    )
                    """)
        }
        try migrator.migrate(queue)
    }

    /// The keys of `appId`, or nil if there is no such app.
    public func keys(of appId: String) throws -> AppKeys? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT client_key, master_key FROM apps WHERE id = ?", arguments: [appId]).map {
                AppKeys(clientKey: $0["client_key"], masterKey: $0["master_key"])
            }
        }
    }

    /// Makes sure `appId` exists and returns its keys: those given (which replace stored ones), else
    /// the stored ones, else new random keys, which are then kept for later starts.
    public func ensureApp(_ appId: String, clientKey: String? = nil, masterKey: String? = nil) throws -> AppKeys {
        try queue.write { db in
            let stored = try Row.fetchOne(db, sql: "SELECT client_key, master_key FROM apps WHERE id = ?", arguments: [appId])
                .map { AppKeys(clientKey: $0["client_key"], masterKey: $0["master_key"]) }
            let fresh = stored ?? AppKeys.random()
            let keys = AppKeys(clientKey: clientKey ?? fresh.clientKey, masterKey: masterKey ?? fresh.masterKey)
            if keys != stored {
                try db.execute(
                    sql: """
                        INSERT INTO apps (id, client_key, master_key, created_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (id) DO UPDATE SET client_key = excluded.client_key, master_key = excluded.master_key
                        """,
                    arguments: [appId, keys.clientKey, keys.masterKey, ISO8601DateFormatter().string(from: Date())])
            }
            return keys
        }
    }
}
