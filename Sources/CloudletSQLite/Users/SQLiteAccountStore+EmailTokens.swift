import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The tokens of email links: one row of `email_tokens` each, keyed by the token's SHA-256, at most
/// one per user and purpose.
extension SQLiteAccountStore {
    /// `email_tokens`.
    static func registerEmailTokens(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("email_tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE email_tokens (
                        token_hash TEXT PRIMARY KEY, purpose TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT NOT NULL,
                        expires_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    CREATE UNIQUE INDEX email_tokens_by_user ON email_tokens (user_id, purpose);
                    """)
        }
    }

    public func replaceEmailToken(_ token: EmailTokenRecord) async throws {
        try await database.writeAlone { db in
            try db.execute(
                sql: "DELETE FROM email_tokens WHERE user_id = ? AND purpose = ?", arguments: [token.userId, token.purpose.rawValue])
            try db.execute(
                sql: "INSERT INTO email_tokens (token_hash, purpose, user_id, email, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.tokenHash, token.purpose.rawValue, token.userId, token.email, ParseDate.string(from: token.expiresAt)])
        }
    }

    public func emailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord? {
        try await database.pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM email_tokens WHERE token_hash = ? AND purpose = ?", arguments: [tokenHash, purpose.rawValue]
            ).flatMap(Self.emailToken)
        }
    }

    public func takeEmailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord? {
        try await database.writeAlone { db in
            try Row.fetchOne(
                db, sql: "DELETE FROM email_tokens WHERE token_hash = ? AND purpose = ? RETURNING *", arguments: [tokenHash, purpose.rawValue]
            ).flatMap(Self.emailToken)
        }
    }

    /// Removes a deleted user's tokens.
    static func deleteEmailTokens(ofUser id: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM email_tokens WHERE user_id = ?", arguments: [id])
    }

    private static func emailToken(_ row: Row) -> EmailTokenRecord? {
        guard let purpose = EmailTokenPurpose(rawValue: row["purpose"]), let expires = ParseDate.date(from: row["expires_at"]) else {
            return nil
        }
        return EmailTokenRecord(tokenHash: row["token_hash"], purpose: purpose, userId: row["user_id"], email: row["email"], expiresAt: expires)
    }
}
