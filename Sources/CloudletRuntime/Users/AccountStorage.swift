import Cloudlet
import Foundation

/// Where users' credentials and sessions live, beside their `_User` objects. Kept apart from the
/// objects so that a password hash can never leave through a query, a response or a hook; with
/// them, the hashed tokens of email links.
public protocol AccountStorage: EmailTokenStorage {
    /// Stores a new `_User` object with its password hash (none for a user of `authData` alone) and
    /// first session (if it gets one), and the new objects `alongside` (push jobs of its before
    /// hook), in one transaction. Throws 202 or 203 if the username or email is taken, 208 if
    /// another user is linked to one of its `authData` ids.
    func insertUser(
        _ user: ParseObject, passwordHash: String?, session: SessionRecord?, outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws

    /// The ids of the users linked to any of `ids` (a user id at each provider, as `authData.<provider>.id`),
    /// at most two: more than one is already one too many.
    func userIds(linkedTo ids: [AuthProvider: String]) async throws -> [String]

    /// The password hash of the user `id`, if the user exists.
    func passwordHash(ofUser id: String) async throws -> String?

    /// Stores a session, ending the user's other sessions from the same installation (as Parse does).
    func insertSession(_ session: SessionRecord) async throws

    /// The session whose token hashes to `tokenHash`, if any.
    func session(tokenHash: String) async throws -> SessionRecord?

    /// The sessions `filter` matches, oldest first: `skip` of them passed, then at most `limit`.
    func sessions(matching filter: SessionFilter, skip: Int, limit: Int) async throws -> [SessionRecord]

    /// How many sessions `filter` matches.
    func countSessions(matching filter: SessionFilter) async throws -> Int

    /// Replaces the own fields of the session `objectId` and sets its update time; returns whether there was one.
    func updateSession(objectId: String, fields: [String: ParseValue], updatedAt: Date) async throws -> Bool

    /// Removes the session whose token hashes to `tokenHash`; returns whether there was one.
    func deleteSession(tokenHash: String) async throws -> Bool

    /// The names of the roles the user `id` holds, directly and inherited, sorted (see
    /// ``UserRoles``); throws ``UserRoles/tooMany(_:)`` past the bounds of ``UserRoles``.
    func roleNames(ofUser id: String) async throws -> [String]
}

/// Which sessions a read of `_Session` names: each member, when set, must match.
public struct SessionFilter: Sendable, Hashable {
    /// The session's user.
    public var userId: String?
    /// The session's object id.
    public var objectId: String?
    /// The installation that made the session.
    public var installationId: String?

    public init(userId: String? = nil, objectId: String? = nil, installationId: String? = nil) {
        self.userId = userId
        self.objectId = objectId
        self.installationId = installationId
    }
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

/// One login session, a `_Session` object. The token itself is never stored, only its SHA-256.
public struct SessionRecord: Sendable, Hashable {
    /// What made a session: Parse's `createdWith`, its `action` and, for a sign-up or login, the
    /// `authProvider` (`password`, or the `authData` provider that logged in).
    public struct Origin: Sendable, Hashable {
        /// Parse's `createdWith.action`.
        public enum Action: String, Sendable, Hashable {
            case signup, login, create, upgrade
        }

        public var action: Action
        /// Parse's `createdWith.authProvider`, nil where Parse sends none.
        public var authProvider: String?

        /// A sign-up with a password.
        public static let signup = Origin(action: .signup, authProvider: "password")
        /// A login with a password.
        public static let login = Origin(action: .login, authProvider: "password")
        /// `POST /sessions` by a logged-in user.
        public static let create = Origin(action: .create, authProvider: nil)
        /// `POST /upgradeToRevocableSession`.
        public static let upgrade = Origin(action: .upgrade, authProvider: nil)

        /// A sign-up or login with `authData` of `provider`: a `login` in Parse's words either way.
        public static func authData(_ provider: String) -> Origin { Origin(action: .login, authProvider: provider) }

        /// The origin as one stored word: the action, then `:` and the provider for `authData`.
        public var stored: String {
            guard let authProvider, authProvider != "password" else { return action.rawValue }
            return action.rawValue + ":" + authProvider
        }

        /// The origin ``stored`` wrote; nil for a word it never writes.
        public init?(stored: String) {
            let parts = stored.split(separator: ":", maxSplits: 1).map(String.init)
            guard let first = parts.first, let action = Action(rawValue: first) else { return nil }
            let provider = parts.count == 2 ? parts[1] : (action == .signup || action == .login ? "password" : nil)
            self.init(action: action, authProvider: provider)
        }

        private init(action: Action, authProvider: String?) {
            self.action = action
            self.authProvider = authProvider
        }
    }

    /// The SHA-256 of the session token, hex.
    public let tokenHash: String
    /// The `_Session` object's id.
    public let objectId: String
    /// The user the session belongs to.
    public let userId: String
    /// The device that logged in, if it said.
    public let installationId: String?
    /// What made the session.
    public let origin: Origin
    /// When the session was created.
    public let createdAt: Date
    /// When the session's own fields last changed (its creation, until they do).
    public var updatedAt: Date
    /// When the session stops being valid.
    public let expiresAt: Date
    /// Fields the session's user set on it (`PUT /sessions/:id`).
    public var fields: [String: ParseValue]

    /// A session; a new object id unless `objectId` is given.
    public init(
        tokenHash: String, objectId: String? = nil, userId: String, installationId: String?, origin: Origin = .login,
        createdAt: Date, updatedAt: Date? = nil, expiresAt: Date, fields: [String: ParseValue] = [:]
    ) {
        self.tokenHash = tokenHash
        self.objectId = objectId ?? ObjectId.new()
        self.userId = userId
        self.installationId = installationId
        self.origin = origin
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.expiresAt = expiresAt
        self.fields = fields
    }
}
