import Cloudlet
import CloudletRuntime
import PostgresNIO

/// An app's ``GlobalConfig`` in its PostgreSQL schema: one row of table `global_config` holding the
/// config as JSON text, as the SQLite store keeps it (text rather than `jsonb`, which would reorder
/// its members and refuse the `\u0000` a parameter may hold).
///
/// An update reads the row locked (`FOR UPDATE`) and writes it in one transaction, so that two
/// updates at once, on one node or on two, each keep the other's parameters.
public struct PostgresGlobalConfigStore: GlobalConfigStorage {
    private let database: PostgresDatabase
    private let table: String

    /// The config store of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        table = schema.quoted + ".global_config"
    }

    /// `global_config`: at most one row, the config as JSON text.
    static let migration = PostgresMigrations.Migration(
        name: "global_config",
        statements: ["CREATE TABLE {schema}.global_config (id integer PRIMARY KEY CHECK (id = 1), document text NOT NULL)"])

    public func globalConfig() async throws -> GlobalConfig {
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT document FROM \(table) WHERE id = 1"), logger: database.logger)
        for try await text in rows.decode(String.self) { return GlobalConfig(json: try JSONParser.parse(text)) }
        return GlobalConfig()
    }

    public func updateGlobalConfig(_ change: @escaping @Sendable (GlobalConfig) throws -> GlobalConfig) async throws {
        try await database.transaction { connection in
            // The row is made first if missing, so that a first update at once with another waits
            // for it, as later ones wait for the row's lock; a throwing change rolls it back too.
            try await connection.query(
                PostgresQuery(unsafeSQL: #"INSERT INTO \#(table) (id, document) VALUES (1, '{"params":{}}') ON CONFLICT (id) DO NOTHING"#),
                logger: database.logger)
            var stored = GlobalConfig()
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT document FROM \(table) WHERE id = 1 FOR UPDATE"), logger: database.logger)
            for try await text in rows.decode(String.self) { stored = GlobalConfig(json: try JSONParser.parse(text)) }
            var binds = PostgresBindings()
            binds.append(try change(stored).storedText())
            try await connection.query(PostgresQuery(unsafeSQL: "UPDATE \(table) SET document = $1 WHERE id = 1", binds: binds), logger: database.logger)
        }
    }
}
