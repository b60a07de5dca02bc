import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// Sessions as `_Session` objects: one row of `sessions` each, keyed by its token's hash, with its
/// object id, what made it, its update time and the fields its user set on it (JSON).
extension SQLiteAccountStore {
    /// Gives every session an object id (existing ones a random one), an origin, an update time
    /// and own fields.
    static func registerSessionObjects(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("session_objects") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN object_id TEXT;
                    ALTER TABLE sessions ADD COLUMN created_with TEXT NOT NULL DEFAULT 'login';
                    ALTER TABLE sessions ADD COLUMN updated_at TEXT;
                    ALTER TABLE sessions ADD COLUMN fields TEXT NOT NULL DEFAULT '{}';
                    UPDATE sessions SET object_id = lower(hex(randomblob(5))), updated_at = created_at;
                    CREATE UNIQUE INDEX sessions_by_object_id ON sessions (object_id);
                    """)
        }
    }

    public func insertSession(_ session: SessionRecord) async throws {
        try await database.writeAlone { db in try Self.insertSession(session, db) }
    }

    public func session(tokenHash: String) async throws -> SessionRecord? {
        try await database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE token_hash = ?", arguments: [tokenHash]).flatMap(Self.session)
        }
    }

    public func sessions(matching filter: SessionFilter, skip: Int, limit: Int) async throws -> [SessionRecord] {
        let (condition, arguments) = Self.condition(filter)
        return try await database.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM sessions WHERE \(condition) ORDER BY created_at, object_id LIMIT ? OFFSET ?",
                arguments: arguments + [limit, skip]
            ).compactMap(Self.session)
        }
    }

    public func countSessions(matching filter: SessionFilter) async throws -> Int {
        let (condition, arguments) = Self.condition(filter)
        return try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions WHERE \(condition)", arguments: arguments) ?? 0
        }
    }

    public func updateSession(objectId: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool {
        try await database.writeAlone { db in
            try db.execute(
                sql: "UPDATE sessions SET fields = ?, updated_at = ? WHERE object_id = ?",
                arguments: [JSONWriter.string(.object(fields)), ParseDate.string(from: updatedAt), objectId])
            return db.changesCount > 0
        }
    }

    public func deleteSession(tokenHash: String) async throws -> Bool {
        try await database.writeAlone { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
            return db.changesCount > 0
        }
    }

    /// Stores `session` and ends its user's other sessions from the same installation.
    static func insertSession(_ session: SessionRecord, _ db: Database) throws {
        if let installationId = session.installationId {
            try db.execute(
                sql: "DELETE FROM sessions WHERE user_id = ? AND installation_id = ?", arguments: [session.userId, installationId])
        }
        try db.execute(
            sql: """
                INSERT INTO sessions (token_hash, object_id, user_id, installation_id, created_with, created_at, updated_at, expires_at, fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                session.tokenHash, session.objectId, session.userId, session.installationId, session.origin.stored,
                ParseDate.string(from: session.createdAt), ParseDate.string(from: session.updatedAt),
                ParseDate.string(from: session.expiresAt), JSONWriter.string(.object(session.fields)),
            ])
    }

    /// The `WHERE` condition and its arguments for `filter`.
    private static func condition(_ filter: SessionFilter) -> (String, StatementArguments) {
        var terms = ["1"]
        var arguments: StatementArguments = []
        for (column, value) in [("user_id", filter.userId), ("object_id", filter.objectId), ("installation_id", filter.installationId)] {
            guard let value else { continue }
            terms.append("\(column) = ?")
            arguments += [value]
        }
        return (terms.joined(separator: " AND "), arguments)
    }

    /// The session in `row`, or nil if its dates cannot be read.
    private static func session(_ row: Row) -> SessionRecord? {
        guard let created = ParseDate.date(from: row["created_at"]), let expires = ParseDate.date(from: row["expires_at"]) else { return nil }
        let fields = (try? JSONParser.parse(row["fields"] as String? ?? "{}"))?.objectValue ?? [:]
        return SessionRecord(
            tokenHash: row["token_hash"], objectId: row["object_id"], userId: row["user_id"], installationId: row["installation_id"],
            origin: SessionRecord.Origin(stored: row["created_with"]) ?? .login, createdAt: created,
            updatedAt: (row["updated_at"] as String?).flatMap(ParseDate.date(from:)), expiresAt: expires, fields: fields)
    }
}
