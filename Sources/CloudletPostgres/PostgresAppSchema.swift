import Crypto
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL schema that holds one app's tables: `app_` and its id in lower case (app ids are
/// unique whatever their case), or for an id too long for PostgreSQL's 63-byte names, its first 38
/// characters and a digest of the whole.
///
/// Each app has a schema of its own, as on SQLite it has a file of its own: the stores' statements
/// name one schema's tables, so a statement that forgot a condition still reaches no other app's
/// rows, and removing an app drops its schema.
public struct PostgresAppSchema: Sendable, Hashable, CustomStringConvertible {
    /// The schema's name.
    public let name: String

    /// The schema of the app `appId` (a valid app id: letters, digits, `-` and `_`).
    public init(appId: String) {
        let lowered = appId.lowercased()
        if lowered.utf8.count <= 59 {
            name = "app_" + lowered
        } else {
            let digest = SHA256.hash(data: Data(lowered.utf8)).prefix(10).map { String(format: "%02x", $0) }.joined()
            name = "app_" + lowered.prefix(38) + "_" + digest
        }
    }

    /// The schema of the host's own tables (the app registry), which no app's can be: theirs
    /// start `app_`.
    package static let host = PostgresAppSchema(reserved: "cloudlet")

    private init(reserved name: String) {
        self.name = name
    }

    /// The name quoted, for SQL text (it holds `-`, which a bare name may not).
    public var quoted: String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    public var description: String { name }
}

/// The versioned changes that make an app's schema, applied in order, each once: a node that
/// starts applies what its schema lacks inside one transaction holding an advisory lock on the
/// schema, so that nodes starting at once apply each change once and none reads a half-made schema.
package enum PostgresMigrations {
    /// One change: its name, as recorded once applied, and its statements (`{schema}` stands for
    /// the quoted schema name).
    package struct Migration: Sendable {
        let name: String
        let statements: [String]

        package init(name: String, statements: [String]) {
            self.name = name
            self.statements = statements
        }
    }

    /// Every change, oldest first. A change once released is never edited: a new one follows it.
    static let all: [Migration] = [
        Migration(
            name: "work_queue",
            statements: [
                """
                CREATE TABLE {schema}.work_queue (
                    seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, kind text NOT NULL, payload text NOT NULL,
                    due timestamptz NOT NULL, attempts integer NOT NULL DEFAULT 0, lease_owner text
                )
                """,
                "CREATE INDEX work_queue_due ON {schema}.work_queue (kind, due, seq)",
            ]),
        Migration(
            name: "objects",
            statements: [
                """
                CREATE TABLE {schema}.objects (
                    class text NOT NULL, id text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL,
                    acl jsonb, data jsonb NOT NULL, PRIMARY KEY (class, id)
                )
                """,
                #"CREATE INDEX objects_created ON {schema}.objects (class, created_at COLLATE "C", id COLLATE "C")"#,
            ]),
        Migration(
            name: "field_types",
            statements: [
                "CREATE TABLE {schema}.classes (class text PRIMARY KEY)",
                """
                CREATE TABLE {schema}.fields (
                    class text NOT NULL REFERENCES {schema}.classes (class), field text NOT NULL, type text NOT NULL,
                    PRIMARY KEY (class, field)
                )
                """,
            ]),
        PostgresRelations.migration,
        PostgresGlobalConfigStore.migration,
        PostgresFileUsageStore.migration,
        PostgresHookRunStore.migration,
        Migration(
            name: "rate_limits",
            statements: [
                // Unlogged: no write-ahead log for a row written on every request; a crash of the
                // database empties it, which makes every quota whole once.
                "CREATE UNLOGGED TABLE {schema}.rate_limits (key text PRIMARY KEY, full_at double precision NOT NULL)",
                PostgresRateLimitStore.chargeFunction,
            ]),
        PostgresJobStore.migration,
        PostgresAccountStore.migration,
        PostgresUniqueValues.migration,
        PostgresObjectStore.installationsMigration,
        PostgresSchemaStore.migration,
        PostgresPushStore.migration,
        PostgresFileStorage.migration,
        PostgresQueryCompiler.textMigration,
        PostgresLiveChanges.migration,
    ]

    /// Brings the app schema `schema` up to date once per process: each of an app's stores asks as
    /// it opens, and only the first asks the database.
    package static func ensure(_ schema: PostgresAppSchema, in database: PostgresDatabase) async throws {
        guard !database.currentSchemas.withLock({ $0.contains(schema.name) }) else { return }
        try await apply(to: schema, in: database)
        database.currentSchemas.withLock { _ = $0.insert(schema.name) }
    }

    /// Brings `schema` in `database` up to date with `migrations` (an app's, unless told);
    /// answers the names of the changes it applied.
    @discardableResult
    package static func apply(_ migrations: [Migration] = all, to schema: PostgresAppSchema, in database: PostgresDatabase) async throws -> [String] {
        try await database.transaction { connection in
            try await apply(migrations, to: schema, on: connection, logger: database.logger)
        }
    }

    /// As ``apply(_:to:in:)``, in the transaction of `connection` (which then holds the schema's
    /// lock until it ends): a copy into the schema makes it and fills it in one transaction.
    @discardableResult
    package static func apply(
        _ migrations: [Migration] = all, to schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        try await lock(schema, on: connection, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema.quoted)"), logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(schema.quoted).migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"),
            logger: logger)
        var applied = Set<String>()
        for try await name in try await connection.query(PostgresQuery(unsafeSQL: "SELECT name FROM \(schema.quoted).migrations"), logger: logger)
            .decode(String.self)
        {
            applied.insert(name)
        }
        var made: [String] = []
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement.replacingOccurrences(of: "{schema}", with: schema.quoted)), logger: logger)
            }
            var binds = PostgresBindings()
            binds.append(migration.name)
            try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(schema.quoted).migrations (name) VALUES ($1)", binds: binds), logger: logger)
            made.append(migration.name)
        }
        return made
    }

    /// Takes the lock of `schema` that its changes are made under, until the transaction of
    /// `connection` ends: one lock per schema, so that nodes migrating other apps go on meanwhile.
    package static func lock(_ schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("cloudlet schema " + schema.name), 0))", logger: logger)
    }
}
