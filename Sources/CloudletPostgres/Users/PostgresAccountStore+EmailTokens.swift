import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// The tokens of email links: one row of `email_tokens` each, keyed by the token's SHA-256, at most
/// one per user and purpose.
extension PostgresAccountStore {
    public func replaceEmailToken(_ token: EmailTokenRecord) async throws {
        var binds = PostgresBindings()
        binds.append(token.tokenHash)
        binds.append(token.purpose.rawValue)
        binds.append(token.userId)
        binds.append(token.email)
        binds.append(ParseDate.string(from: token.expiresAt))
        // One statement: two nodes replacing a user's token at once leave one of the two.
        try await objects.database.execute(
            """
            INSERT INTO \(schema.quoted).email_tokens (token_hash, purpose, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (user_id, purpose) DO UPDATE SET token_hash = excluded.token_hash, email = excluded.email, expires_at = excluded.expires_at
            """, binds)
    }

    public func emailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord? {
        try await emailToken(tokenHash, purpose, taking: false)
    }

    public func takeEmailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord? {
        try await emailToken(tokenHash, purpose, taking: true)
    }

    /// The token whose hash is `tokenHash` for `purpose`, read, or deleted as it is read if `taking`.
    private func emailToken(_ tokenHash: String, _ purpose: EmailTokenPurpose, taking: Bool) async throws -> EmailTokenRecord? {
        let columns = "token_hash, purpose, user_id, email, expires_at"
        let table = "\(schema.quoted).email_tokens WHERE token_hash = $1 AND purpose = $2"
        var binds = PostgresBindings()
        binds.append(tokenHash)
        binds.append(purpose.rawValue)
        return try await objects.database.client.withConnection { connection in
            let sql = taking ? "DELETE FROM \(table) RETURNING \(columns)" : "SELECT \(columns) FROM \(table)"
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            for try await row in rows.decode((String, String, String, String, String).self) {
                guard let purpose = EmailTokenPurpose(rawValue: row.1), let expires = ParseDate.date(from: row.4) else { return nil }
                return EmailTokenRecord(tokenHash: row.0, purpose: purpose, userId: row.2, email: row.3, expiresAt: expires)
            }
            return nil
        }
    }
}
