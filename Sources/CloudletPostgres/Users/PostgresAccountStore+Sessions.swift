import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// Sessions as `_Session` objects: one row of `sessions` each, keyed by its token's hash, with its
/// object id, what made it, its update time and the fields its user set on it (JSON text, as the
/// SQLite store writes it).
extension PostgresAccountStore {
    /// The columns a session is read from, in the order ``session(_:)`` decodes them.
    private static let columns = "token_hash, object_id, user_id, installation_id, created_with, created_at, updated_at, expires_at, fields"

    /// Stores `session`; one from an installation replaces its user's session from it, which ends
    /// on every node: each forgets the user's cached sessions.
    public func insertSession(_ session: SessionRecord) async throws {
        try await objects.database.transaction { connection in
            try await Self.insertSession(session, in: schema, on: connection, logger: logger)
            if session.installationId != nil {
                try await PostgresStoreChanges.notify(.sessions(.user(id: session.userId)), in: schema, on: connection, logger: logger)
            }
        }
    }

    public func session(tokenHash: String) async throws -> SessionRecord? {
        var binds = PostgresBindings()
        binds.append(tokenHash)
        return try await sessions("SELECT \(Self.columns) FROM \(schema.quoted).sessions WHERE token_hash = $1", binds).first
    }

    public func sessions(matching filter: SessionFilter, skip: Int, limit: Int) async throws -> [SessionRecord] {
        var (condition, binds) = Self.condition(filter)
        binds.append(limit)
        binds.append(skip)
        return try await sessions(
            """
            SELECT \(Self.columns) FROM \(schema.quoted).sessions WHERE \(condition)
            ORDER BY created_at COLLATE "C", object_id COLLATE "C" LIMIT $\(binds.count - 1) OFFSET $\(binds.count)
            """, binds)
    }

    public func countSessions(matching filter: SessionFilter) async throws -> Int {
        let (condition, binds) = Self.condition(filter)
        return try await objects.database.client.withConnection { connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(schema.quoted).sessions WHERE \(condition)", binds: binds), logger: logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func updateSession(objectId: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(JSONWriter.string(.object(fields)))
        binds.append(ParseDate.string(from: updatedAt))
        binds.append(objectId)
        return try await !strings("UPDATE \(schema.quoted).sessions SET fields = $1, updated_at = $2 WHERE object_id = $3 RETURNING object_id", binds)
            .isEmpty
    }

    /// Ends the session of `tokenHash` and, if there was one, tells every node that it ended
    /// (``PostgresStoreChanges``), in one statement: one round trip.
    public func deleteSession(tokenHash: String) async throws -> Bool {
        let (topic, detail) = PostgresStoreChanges.notice(of: .sessions(.session(tokenHash: tokenHash)), in: schema)
        let binds = PostgresBindings(tokenHash, PostgresNotifications.channel, PostgresNotifications.payload(topic, detail: detail))
        return try await objects.database.client.withConnection { connection in
            try await connection.count(
                """
                WITH ended AS (DELETE FROM \(schema.quoted).sessions WHERE token_hash = $1 RETURNING token_hash)
                SELECT pg_notify($2, $3) FROM ended
                """, binds, logger: logger)
        } > 0
    }

    /// Stores `session` in the transaction of `connection`, replacing its user's session from the
    /// same installation: one statement, so that logins from one installation on two nodes at
    /// once leave one session.
    static func insertSession(_ session: SessionRecord, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        var binds = PostgresBindings()
        binds.append(session.tokenHash)
        binds.append(session.objectId)
        binds.append(session.userId)
        binds.append(session.installationId)
        binds.append(session.origin.stored)
        binds.append(ParseDate.string(from: session.createdAt))
        binds.append(ParseDate.string(from: session.updatedAt))
        binds.append(ParseDate.string(from: session.expiresAt))
        binds.append(JSONWriter.string(.object(session.fields)))
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(schema.quoted).sessions (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    ON CONFLICT (user_id, installation_id) WHERE installation_id IS NOT NULL DO UPDATE SET
                        token_hash = excluded.token_hash, object_id = excluded.object_id, created_with = excluded.created_with,
                        created_at = excluded.created_at, updated_at = excluded.updated_at, expires_at = excluded.expires_at,
                        fields = excluded.fields
                    """, binds: binds), logger: logger)
    }

    /// The `WHERE` condition and its bindings for `filter`.
    private static func condition(_ filter: SessionFilter) -> (String, PostgresBindings) {
        var terms = ["true"]
        var binds = PostgresBindings()
        for (column, value) in [("user_id", filter.userId), ("object_id", filter.objectId), ("installation_id", filter.installationId)] {
            guard let value else { continue }
            binds.append(value)
            terms.append("\(column) = $\(binds.count)")
        }
        return (terms.joined(separator: " AND "), binds)
    }

    /// The sessions `sql` selects (``columns``), outside any transaction.
    private func sessions(_ sql: String, _ binds: PostgresBindings) async throws -> [SessionRecord] {
        try await objects.database.client.withConnection { connection in
            var sessions: [SessionRecord] = []
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            for try await row in rows.decode((String, String, String, String?, String, String, String, String, String).self) {
                guard let created = ParseDate.date(from: row.5), let expires = ParseDate.date(from: row.7) else { continue }
                sessions.append(
                    SessionRecord(
                        tokenHash: row.0, objectId: row.1, userId: row.2, installationId: row.3,
                        origin: SessionRecord.Origin(stored: row.4) ?? .login, createdAt: created, updatedAt: ParseDate.date(from: row.6),
                        expiresAt: expires, fields: (try? JSONParser.parse(row.8))?.objectValue ?? [:]))
            }
            return sessions
        }
    }
}
