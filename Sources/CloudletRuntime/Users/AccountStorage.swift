import Cloudlet
import Foundation

/// Where users' credentials and sessions live, beside their `_User` objects. Kept apart from the
/// objects so that a password hash can never leave through a query, a response or a hook.
public protocol AccountStorage: Sendable {
    /// Stores a new `_User` object with its password hash and first session, and the new objects
    /// `alongside` (push jobs of its before hook), in one transaction.
    /// Throws 202 or 203 if the username or email is taken.
    func insertUser(
        _ user: ParseObject, passwordHash: String, session: SessionRecord, outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws

    /// The password hash of the user `id`, if the user exists.
    func passwordHash(ofUser id: String) async throws -> String?

    /// Stores a session.
    func insertSession(_ session: SessionRecord) async throws

    /// The session whose token hashes to `tokenHash`, if any.
    func session(tokenHash: String) async throws -> SessionRecord?

    /// Removes the session whose token hashes to `tokenHash`; returns whether there was one.
    func deleteSession(tokenHash: String) async throws -> Bool
}

/// A user's new password: its hash replaces the old one and the user's other sessions end, in the
/// transaction that updates the user (see ``ObjectChanges/password``).
public struct PasswordChange: Sendable {
    /// The new password's hash.
    public var hash: String
    /// The SHA-256 of the session that stays (the one that changed the password), if any.
    public var keptSessionTokenHash: String?

    public init(hash: String, keptSessionTokenHash: String?) {
        self.hash = hash
        self.keptSessionTokenHash = keptSessionTokenHash
    }
}

/// One login session. The token itself is never stored, only its SHA-256.
public struct SessionRecord: Sendable, Hashable {
    /// The SHA-256 of the session token, hex.
    public let tokenHash: String
    /// The user the session belongs to.
    public let userId: String
    /// The device that logged in, if it said.
    public let installationId: String?
    /// When the session was created.
    public let createdAt: Date
    /// When the session stops being valid.
    public let expiresAt: Date

    public init(tokenHash: String, userId: String, installationId: String?, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.userId = userId
        self.installationId = installationId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
