import Cloudlet
import CloudletPostgres
import CloudletRuntime
import PostgresNIO

/// The registry in the `cloudlet` schema of the PostgreSQL database every node shares: `apps`,
/// `app_keys`, `host_settings`, and `changes`, one row counting the registry's writes. Writes take
/// turns under one advisory lock (they are rare: an operator's commands), bump the count and
/// notify topic `registry`, which wakes every node's ``AppSupervisor`` at the commit.
struct PostgresRegistryStorage: RegistryStorage {
    let database: CloudletPostgres.PostgresDatabase
    private let schema = PostgresAppSchema.host.quoted

    /// The topic of the notification a registry write sends.
    static let topic = "registry"

    static let migrations = [
        PostgresMigrations.Migration(
            name: "registry",
            statements: [
                """
                CREATE TABLE {schema}.apps (
                    id text PRIMARY KEY, settings text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX apps_by_folded_id ON {schema}.apps (lower(id))",
                """
                CREATE TABLE {schema}.app_keys (
                    seq bigserial PRIMARY KEY, app text NOT NULL REFERENCES {schema}.apps (id) ON DELETE CASCADE,
                    kind text NOT NULL CHECK (kind IN ('client', 'master')), value text NOT NULL,
                    state text NOT NULL CHECK (state IN ('active', 'retiring')), created_at text NOT NULL
                )
                """,
                "CREATE INDEX app_keys_by_app ON {schema}.app_keys (app)",
                "CREATE TABLE {schema}.host_settings (name text PRIMARY KEY, value text NOT NULL)",
                "CREATE TABLE {schema}.changes (version bigint NOT NULL)",
                "INSERT INTO {schema}.changes VALUES (0)",
            ])
    ]

    /// The registry of `database`, its schema made or brought up to date first.
    init(_ database: CloudletPostgres.PostgresDatabase) async throws {
        try await PostgresMigrations.apply(Self.migrations, to: .host, in: database)
        self.database = database
    }

    func records(_ id: String?) async throws -> [AppRecord] {
        try await database.client.withConnection { connection in try await records(id, on: connection) }
    }

    private func records(_ id: String?, on connection: PostgresConnection) async throws -> [AppRecord] {
        var keys: [String: [StoredAppKey]] = [:]
        let keyRows = try await connection.query(
            "SELECT app, kind, value, state, created_at FROM \(unescaped: schema).app_keys WHERE \(id)::text IS NULL OR app = \(id) ORDER BY seq",
            logger: database.logger)
        for try await (app, kind, value, state, createdAt) in keyRows.decode((String, String, String, String, String).self) {
            if let key = AppRegistry.key(kind: kind, value: value, state: state, createdAt: createdAt) { keys[app, default: []].append(key) }
        }
        var records: [AppRecord] = []
        let rows = try await connection.query(
            "SELECT id, settings, created_at, updated_at FROM \(unescaped: schema).apps WHERE \(id)::text IS NULL OR id = \(id) ORDER BY id COLLATE \"C\"",
            logger: database.logger)
        for try await (id, settings, createdAt, updatedAt) in rows.decode((String, String, String, String).self) {
            records.append(try AppRegistry.record(id: id, settings: settings, keys: keys[id] ?? [], createdAt: createdAt, updatedAt: updatedAt))
        }
        return records
    }

    func insert(_ id: String, settings: AppSettings, keys: [(AppKeyKind, String)], at now: String) async throws -> AppRecord {
        try await write { connection in
            var existing: String?
            for try await found in try await connection.query(
                "SELECT id FROM \(unescaped: schema).apps WHERE lower(id) = lower(\(id))", logger: database.logger
            ).decode(String.self) { existing = found }
            var count = 0
            for try await apps in try await connection.query("SELECT count(*) FROM \(unescaped: schema).apps", logger: database.logger)
                .decode(Int.self)
            { count = apps }
            try AppRegistry.checkRoom(for: id, existing: existing, count: count)
            try await connection.query(
                "INSERT INTO \(unescaped: schema).apps (id, settings, created_at, updated_at) VALUES (\(id), \(AppRegistry.document(settings)), \(now), \(now))",
                logger: database.logger)
            for (kind, value) in keys { try await insertKey(id, kind, value, at: now, on: connection) }
            return try await records(id, on: connection)[0]
        }
    }

    func update(_ id: String, _ change: @Sendable (inout AppSettings) throws -> Void) async throws -> AppRecord {
        try await write { connection in
            var document: String?
            for try await stored in try await connection.query(
                "SELECT settings FROM \(unescaped: schema).apps WHERE id = \(id) FOR UPDATE", logger: database.logger
            ).decode(String.self) { document = stored }
            guard let document else { throw AppRegistry.notFound(id) }
            var settings = try AppRegistry.settings(document)
            try change(&settings)
            try await connection.query(
                "UPDATE \(unescaped: schema).apps SET settings = \(AppRegistry.document(settings)), updated_at = \(AppRegistry.now()) WHERE id = \(id)",
                logger: database.logger)
            return try await records(id, on: connection)[0]
        }
    }

    func delete(_ id: String) async throws {
        try await write { connection in
            guard try await count(connection.query("DELETE FROM \(unescaped: schema).apps WHERE id = \(id) RETURNING id", logger: database.logger)) > 0
            else { throw AppRegistry.notFound(id) }
        }
    }

    func changeKeys(of id: String, _ kind: AppKeyKind, _ change: KeyChange, at now: String) async throws -> Int {
        try await write { connection in
            guard try await count(connection.query("SELECT id FROM \(unescaped: schema).apps WHERE id = \(id) FOR UPDATE", logger: database.logger)) > 0
            else { throw AppRegistry.notFound(id) }
            let keys = "\(schema).app_keys"
            let changed: Int
            switch change {
            case .rotate(let value):
                try await connection.query(
                    "DELETE FROM \(unescaped: keys) WHERE app = \(id) AND kind = \(kind.rawValue) AND state = 'retiring'", logger: database.logger)
                try await connection.query(
                    "UPDATE \(unescaped: keys) SET state = 'retiring' WHERE app = \(id) AND kind = \(kind.rawValue)", logger: database.logger)
                try await insertKey(id, kind, value, at: now, on: connection)
                changed = 1
            case .retire:
                changed = try await count(
                    connection.query(
                        "DELETE FROM \(unescaped: keys) WHERE app = \(id) AND kind = \(kind.rawValue) AND state = 'retiring' RETURNING seq",
                        logger: database.logger))
                guard changed > 0 else { return 0 }
            case .replace(let value):
                try await connection.query("DELETE FROM \(unescaped: keys) WHERE app = \(id) AND kind = \(kind.rawValue)", logger: database.logger)
                try await insertKey(id, kind, value, at: now, on: connection)
                changed = 1
            }
            try await connection.query("UPDATE \(unescaped: schema).apps SET updated_at = \(now) WHERE id = \(id)", logger: database.logger)
            return changed
        }
    }

    func hostSetting(_ name: String) async throws -> String? {
        try await database.client.withConnection { connection in
            for try await value in try await connection.query(
                "SELECT value FROM \(unescaped: schema).host_settings WHERE name = \(name)", logger: database.logger
            ).decode(String.self) { return value }
            return nil
        }
    }

    func setHostSetting(_ name: String, _ value: String, replacing: Bool) async throws -> Bool {
        let onConflict = replacing ? "UPDATE SET value = excluded.value" : "NOTHING"
        return try await write { connection in
            try await count(
                connection.query(
                    """
                    INSERT INTO \(unescaped: schema).host_settings (name, value) VALUES (\(name), \(value))
                    ON CONFLICT (name) DO \(unescaped: onConflict) RETURNING name
                    """, logger: database.logger)) > 0
        }
    }

    func changeVersion() async throws -> Int {
        try await database.client.withConnection { connection in
            for try await version in try await connection.query("SELECT version FROM \(unescaped: schema).changes", logger: database.logger)
                .decode(Int.self)
            { return version }
            return 0
        }
    }

    func changeSignal() async -> WakeSignal? {
        await database.wakeSignal(for: Self.topic)
    }

    /// Runs `body` in a transaction that holds the registry's lock, then counts the change and
    /// notifies every node of it at the commit.
    private func write<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('cloudlet registry', 0))", logger: database.logger)
            let result = try await body(connection)
            try await connection.query("UPDATE \(unescaped: schema).changes SET version = version + 1", logger: database.logger)
            try await PostgresNotifications.notify(Self.topic, on: connection, logger: database.logger)
            return result
        }
    }

    private func insertKey(_ id: String, _ kind: AppKeyKind, _ value: String, at now: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO \(unescaped: schema).app_keys (app, kind, value, state, created_at)
            VALUES (\(id), \(kind.rawValue), \(value), 'active', \(now))
            """, logger: database.logger)
    }

    private func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
