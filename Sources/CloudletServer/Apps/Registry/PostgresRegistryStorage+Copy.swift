import CloudletPostgres
import Logging
import PostgresNIO

extension PostgresRegistryStorage {
    /// Whether the registry lists an app whose id is `id` whatever its case, read in the
    /// transaction of `connection`.
    static func lists(_ id: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let apps = PostgresAppSchema.host.quoted
        for try await _ in try await connection.query("SELECT 1 FROM \(unescaped: apps).apps WHERE lower(id) = lower(\(id))", logger: logger) {
            return true
        }
        return false
    }

    /// Stores `record` as another registry kept it — its settings, dates and every key as stored
    /// (master keys as their hashes, so that the keys its clients hold keep working) — in the
    /// transaction of `connection`, holding the registry's lock to the commit, which every node
    /// sees as a registry change. With `replacing`, an app of the same id, whatever its case, goes first.
    static func insertCopied(_ record: AppRecord, replacing: Bool, on connection: PostgresConnection, logger: Logger) async throws {
        let schema = PostgresAppSchema.host.quoted
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('cloudlet registry', 0))", logger: logger)
        if replacing { try await connection.query("DELETE FROM \(unescaped: schema).apps WHERE lower(id) = lower(\(record.id))", logger: logger) }
        try await connection.query(
            """
            INSERT INTO \(unescaped: schema).apps (id, settings, created_at, updated_at)
            VALUES (\(record.id), \(AppRegistry.document(record.settings)), \(record.createdAt), \(record.updatedAt))
            """, logger: logger)
        for key in record.keys {
            try await connection.query(
                """
                INSERT INTO \(unescaped: schema).app_keys (app, kind, value, state, created_at)
                VALUES (\(record.id), \(key.kind.rawValue), \(key.value), \(key.state.rawValue), \(key.createdAt))
                """, logger: logger)
        }
        try await connection.query("UPDATE \(unescaped: schema).changes SET version = version + 1", logger: logger)
        try await PostgresNotifications.notify(topic, on: connection, logger: logger)
    }
}
