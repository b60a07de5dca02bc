import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// ``AccountStorage`` in the app's database: password hashes in `credentials` and sessions in
/// `sessions` (see `SQLiteAccountStore+Sessions.swift`), beside the `_User` objects (whose
/// usernames and emails unique indexes keep unique).
public struct SQLiteAccountStore: AccountStorage {
    let database: SQLiteAppDatabase

    /// The accounts of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `credentials` and `sessions`, and the unique indexes on users' usernames and emails.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE credentials (user_id TEXT PRIMARY KEY, password_hash TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE sessions (
                        token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, installation_id TEXT,
                        created_at TEXT NOT NULL, expires_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX sessions_by_user ON sessions (user_id);
                    CREATE UNIQUE INDEX users_by_username ON objects (json_extract(data, '$.username')) WHERE class = '_User';
                    CREATE UNIQUE INDEX users_by_email ON objects (lower(json_extract(data, '$.email'))) WHERE class = '_User';
                    """)
        }
    }

    public func insertUser(
        _ user: ParseObject, passwordHash: String?, session: SessionRecord?, outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws {
        let rows = database.objectRows
        let arguments = try rows.arguments(user, encodedIn: outbox)
        let companions = try rows.companions(alongside)
        let queue = SQLiteWorkQueue(database)
        try await database.write { db in
            try ObjectRows.checkUniqueness(of: user, db)
            try rows.insert(user, arguments, db)
            if let passwordHash {
                try db.execute(
                    sql: "INSERT INTO credentials (user_id, password_hash) VALUES (?, ?)", arguments: [user.objectId, passwordHash])
            }
            if let session { try Self.insertSession(session, db) }
            if let outbox { try queue.queueAfterHook(outbox, db) }
            try rows.insertCompanions(companions, db)
        }
    }

    public func userIds(linkedTo ids: [AuthProvider: String]) async throws -> [String] {
        try await database.pool.read { db in try SQLiteAuthDataIndex.userIds(linkedTo: ids, db) }
    }

    public func passwordHash(ofUser id: String) async throws -> String? {
        try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT password_hash FROM credentials WHERE user_id = ?", arguments: [id])
        }
    }

    /// Replaces the password hash of `user` and ends its sessions but the kept one.
    static func setPassword(_ change: PasswordChange, of user: ParseObject, _ db: Database) throws {
        guard user.className == "_User", let id = user.objectId else { return }
        try db.execute(
            sql: "INSERT INTO credentials (user_id, password_hash) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash",
            arguments: [id, change.hash])
        try db.execute(
            sql: "DELETE FROM sessions WHERE user_id = ? AND token_hash IS NOT ?", arguments: [id, change.keptSessionTokenHash])
    }

    /// Throws 202 or 203 when another user has the username or (case aside) the email of `user`.
    static func checkUniqueness(of user: ParseObject, _ db: Database) throws {
        if let username = user["username"]?.stringValue,
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM objects WHERE class = '_User' AND json_extract(data, '$.username') = ? AND id IS NOT ?",
                arguments: [username, user.objectId]) == true
        {
            throw ParseError(code: 202, message: "Account already exists for this username.")
        }
        if let email = user["email"]?.stringValue,
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM objects WHERE class = '_User' AND lower(json_extract(data, '$.email')) = lower(?) AND id IS NOT ?",
                arguments: [email, user.objectId]) == true
        {
            throw ParseError(code: 203, message: "Account already exists for this email address.")
        }
        try SQLiteAuthDataIndex.checkUniqueness(of: user, db)
    }

    /// Removes a deleted user's credentials, sessions and email tokens.
    static func deleteAccount(of object: ParseObject, _ db: Database) throws {
        guard object.className == "_User", let id = object.objectId else { return }
        try db.execute(sql: "DELETE FROM credentials WHERE user_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [id])
        try deleteEmailTokens(ofUser: id, db)
    }
}
