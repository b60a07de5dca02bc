import Cloudlet
import CloudletRuntime
import GRDB

/// An app's ``GlobalConfig`` in its database: one row of table `global_config` holding the config
/// as JSON. A table of its own rather than a `_GlobalConfig` object: the config is one document
/// that no class query, class hook, schema or object size limit should see, and one row read is
/// all `GET /config` costs.
public struct SQLiteGlobalConfigStore: GlobalConfigStorage {
    let database: SQLiteAppDatabase

    /// The config store of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `global_config`: at most one row, the config as JSON text.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("global_config") { db in
            try db.execute(sql: "CREATE TABLE global_config (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL)")
        }
    }

    public func globalConfig() async throws -> GlobalConfig {
        try await database.pool.read { db in try Self.read(db) }
    }

    public func updateGlobalConfig(_ change: @escaping @Sendable (GlobalConfig) throws -> GlobalConfig) async throws {
        try await database.writeAlone { db in
            let text = try change(try Self.read(db)).storedText()
            try db.execute(sql: "INSERT OR REPLACE INTO global_config (id, document) VALUES (1, ?)", arguments: [text])
        }
    }

    private static func read(_ db: Database) throws -> GlobalConfig {
        guard let text = try String.fetchOne(db, sql: "SELECT document FROM global_config WHERE id = 1") else { return GlobalConfig() }
        return GlobalConfig(json: try JSONParser.parse(text))
    }
}
