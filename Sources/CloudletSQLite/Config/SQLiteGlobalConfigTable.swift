import Cloudlet
import CloudletRuntime
import GRDB

/// An app's ``GlobalConfig`` in its database: one row of table `global_config` holding the config
/// as JSON. A table of its own rather than a `_GlobalConfig` object: the config is one document
/// that no class query, class hook, schema or object size limit should see, and one row read is
/// all `GET /config` costs.
struct SQLiteGlobalConfigTable: Sendable {
    /// The app's database.
    let pool: DatabasePool

    /// `global_config`: at most one row, the config as JSON text.
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("global_config") { db in
            try db.execute(sql: "CREATE TABLE global_config (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL)")
        }
    }

    /// The stored config, or an empty one.
    func read() async throws -> GlobalConfig {
        try await pool.read { db in try Self.read(db) }
    }

    /// Stores what `change` makes of the stored config, within one write transaction.
    func update(_ change: @escaping @Sendable (GlobalConfig) throws -> GlobalConfig) async throws {
        try await pool.write { db in
            let text = try change(try Self.read(db)).storedText()
            try db.execute(sql: "INSERT OR REPLACE INTO global_config (id, document) VALUES (1, ?)", arguments: [text])
        }
    }

    private static func read(_ db: Database) throws -> GlobalConfig {
        guard let text = try String.fetchOne(db, sql: "SELECT document FROM global_config WHERE id = 1") else { return GlobalConfig() }
        return GlobalConfig(json: try JSONParser.parse(text))
    }
}
