import Cloudlet
import Foundation

/// What an email link's token is for.
public enum EmailTokenPurpose: String, Sendable, Hashable {
    /// Marks the user's email verified.
    case verifyEmail
    /// Lets the user choose a new password.
    case resetPassword
}

/// A token of an email link as stored: its SHA-256, never the token itself.
public struct EmailTokenRecord: Sendable, Hashable {
    /// The SHA-256 of the token, hex.
    public var tokenHash: String
    public var purpose: EmailTokenPurpose
    /// The user it was sent to.
    public var userId: String
    /// The email it was sent to: a token is void once the user's email has changed.
    public var email: String
    /// When the link stops working.
    public var expiresAt: Date

    public init(tokenHash: String, purpose: EmailTokenPurpose, userId: String, email: String, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.purpose = purpose
        self.userId = userId
        self.email = email
        self.expiresAt = expiresAt
    }
}

/// Where the tokens of email links live, beside the accounts. Each user has at most one token per
/// purpose: a new one replaces the last; using one removes it.
public protocol EmailTokenStorage: Sendable {
    /// Stores `token`, replacing the user's earlier token of the same purpose.
    func replaceEmailToken(_ token: EmailTokenRecord) async throws

    /// The token of `purpose` whose hash is `tokenHash`, if one is stored.
    func emailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord?

    /// Removes and answers the token of `purpose` whose hash is `tokenHash`: of two uses at once,
    /// one gets it.
    func takeEmailToken(hash tokenHash: String, purpose: EmailTokenPurpose) async throws -> EmailTokenRecord?
}

/// The tokens of email links: 32 random bytes from the system's secure source, as 64 hex digits
/// (safe in a URL as they are), stored as their SHA-256.
enum EmailToken {
    /// The length of a token.
    static let length = 64

    static func generate() -> String {
        SessionToken.randomHex(byteCount: 32)
    }

    /// Whether `text` could be a token (anything else is refused before storage is asked).
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
