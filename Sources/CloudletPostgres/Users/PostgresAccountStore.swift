import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// ``AccountStorage`` in the app's schema, as the SQLite store keeps it: password hashes in
/// `credentials`, sessions in `sessions` (see `PostgresAccountStore+Sessions.swift`) and the tokens
/// of email links in `email_tokens`, beside the `_User` objects, whose unique values
/// ``PostgresUniqueValues`` keeps unique across nodes. A password hash is never part of an object.
public struct PostgresAccountStore: AccountStorage {
    let objects: PostgresObjectStore

    /// The accounts of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema, maximumObjectBytes: Int = 1 << 20) async throws {
        objects = try await PostgresObjectStore(database, schema: schema, maximumObjectBytes: maximumObjectBytes)
    }

    /// The tables, as a change of the schema. A user's sessions are found by its id (in the order
    /// a list answers them), and a user has at most one session per installation: a new login
    /// from it replaces the old session in one statement, however many nodes log in at once.
    static let migration = PostgresMigrations.Migration(
        name: "accounts",
        statements: [
            "CREATE TABLE {schema}.credentials (user_id text PRIMARY KEY, password_hash text NOT NULL)",
            """
            CREATE TABLE {schema}.sessions (
                token_hash text PRIMARY KEY, object_id text NOT NULL UNIQUE, user_id text NOT NULL, installation_id text,
                created_with text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL, expires_at text NOT NULL, fields text NOT NULL
            )
            """,
            #"CREATE INDEX sessions_by_user ON {schema}.sessions (user_id, created_at COLLATE "C", object_id COLLATE "C")"#,
            "CREATE UNIQUE INDEX sessions_by_installation ON {schema}.sessions (user_id, installation_id) WHERE installation_id IS NOT NULL",
            """
            CREATE TABLE {schema}.email_tokens (
                token_hash text PRIMARY KEY, purpose text NOT NULL, user_id text NOT NULL, email text NOT NULL, expires_at text NOT NULL,
                UNIQUE (user_id, purpose)
            )
            """,
        ])

    var schema: PostgresAppSchema { objects.schema }
    var logger: Logger { objects.database.logger }

    public func insertUser(
        _ user: ParseObject, passwordHash: String?, session: SessionRecord?, outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws {
        let row = try objects.encoded(user, in: outbox)
        let companions = try alongside.map { companion in (companion, try objects.checkedText(companion)) }
        try await objects.writer.write { connection, afterCommit in
            try await objects.insertRow(user, row, on: connection, afterCommit: &afterCommit)
            if let passwordHash, let id = user.objectId {
                try await Self.setPassword(PasswordChange(hash: passwordHash, keptSessionTokenHash: nil), ofUser: id, in: schema, on: connection, logger: logger)
            }
            if let session { try await Self.insertSession(session, in: schema, on: connection, logger: logger) }
            if let outbox { try await objects.queueAfterHook(outbox, on: connection) }
            for (companion, text) in companions { try await objects.insertRow(companion, text, on: connection, afterCommit: &afterCommit) }
        }
    }

    public func userIds(linkedTo ids: [AuthProvider: String]) async throws -> [String] {
        var found: Set<String> = []
        for (provider, id) in ids.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where found.count < 2 {
            var binds = PostgresBindings()
            binds.append(id)
            found.formUnion(try await strings(linkedUsersQuery(provider), binds))
        }
        return Array(found.sorted().prefix(2))
    }

    /// The statement that finds the users linked to the id `$1` at `provider`, at most two.
    func linkedUsersQuery(_ provider: AuthProvider) -> String {
        "SELECT id FROM \(objects.table) WHERE class = '_User' AND \(PostgresUniqueValues.authDataId(provider.rawValue)) = $1 LIMIT 2"
    }

    public func passwordHash(ofUser id: String) async throws -> String? {
        var binds = PostgresBindings()
        binds.append(id)
        return try await strings("SELECT password_hash FROM \(schema.quoted).credentials WHERE user_id = $1", binds).first
    }

    /// Replaces the password hash of the user `id` and ends its sessions but the kept one, in the
    /// transaction of `connection`.
    static func setPassword(
        _ change: PasswordChange, ofUser id: String, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(change.hash)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(schema.quoted).credentials (user_id, password_hash) VALUES ($1, $2)
                    ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash
                    """, binds: binds), logger: logger)
        var ending = PostgresBindings()
        ending.append(id)
        ending.append(change.keptSessionTokenHash)
        try await connection.query(
            PostgresQuery(unsafeSQL: "DELETE FROM \(schema.quoted).sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2", binds: ending),
            logger: logger)
    }

    /// The tables of a user's account beside its object.
    static let accountTables = ["credentials", "sessions", "email_tokens"]

    /// Removes the credentials, sessions and email tokens of the user `id`, in the transaction of `connection`.
    static func deleteAccount(ofUser id: String, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        for table in accountTables {
            var binds = PostgresBindings()
            binds.append(id)
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema.quoted).\(table) WHERE user_id = $1", binds: binds), logger: logger)
        }
    }

    /// Removes every user's credentials, sessions and email tokens, for a purge of `_User`.
    static func deleteAllAccounts(in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        for table in accountTables {
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema.quoted).\(table)"), logger: logger)
        }
    }

    /// The first column of the rows `sql` selects, outside any transaction.
    func strings(_ sql: String, _ binds: PostgresBindings) async throws -> [String] {
        try await objects.database.client.withConnection { connection in
            var values: [String] = []
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(String.self) {
                values.append(value)
            }
            return values
        }
    }
}
