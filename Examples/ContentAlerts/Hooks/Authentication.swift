import Cloudlet
import Crypto
import Foundation

/// What `authenticate` takes: all three must match the account.
struct Credentials: Decodable, Sendable {
    let username: String
    let password: String
    let role: String
}

/// What `authenticate` answers: a random token and what it stands for.
struct Grant: Codable, Sendable {
    let token: String
    let username: String
    let role: String
    let expiresAt: Date
}

/// Checks credentials against `Users` and hands out tokens, kept (as SHA-256 only) in `AuthTokens`,
/// readable by the master key only.
enum Authentication {
    /// The class that holds issued tokens.
    static let tokenClassName = "AuthTokens"
    /// How long a token is good for.
    static let tokenLifetime: TimeInterval = 12 * 3600
    /// The one answer to any failed check: it never says which of username, password or role was wrong.
    static let invalidCredentials = HookError(code: 101, message: "invalid credentials")

    /// `authenticate`: a new token if `username`, `password` and `role` all match an account.
    @Sendable static func authenticate(_ credentials: Credentials, context: HookContext) async throws -> Grant {
        let found = try await Accounts.find(credentials.username, store: context.store)
        let passwordMatches = (found?.digest ?? .decoy).matches(credentials.password)
        guard let account = found?.account, passwordMatches, account["role"]?.stringValue == credentials.role else {
            context.logger.info("authentication refused")
            throw invalidCredentials
        }
        let grant = Grant(
            token: Hex.randomBytes(32), username: credentials.username, role: credentials.role,
            expiresAt: context.clock.now.addingTimeInterval(tokenLifetime))
        let record: [String: ParseValue] = [
            "tokenHash": .string(digest(of: grant.token)), "account": account.pointer ?? .null,
            "username": .string(grant.username), "role": .string(grant.role), "expiresAt": .date(grant.expiresAt),
        ]
        _ = try await context.store.asMaster.save(ParseObject(className: tokenClassName, acl: ParseACL(), fields: record))
        return grant
    }

    /// The unexpired grant `token` stands for, if any.
    static func grant(for token: String, context: HookContext) async throws -> Grant? {
        let query = ParseQuery(tokenClassName).whereKey("tokenHash", equalTo: .string(digest(of: token))).limit(1)
        guard let record = try await context.store.asMaster.find(query).first,
            let username = record["username"]?.stringValue, let role = record["role"]?.stringValue,
            let expiresAt = record["expiresAt"]?.dateValue, expiresAt > context.clock.now
        else { return nil }
        return Grant(token: token, username: username, role: role, expiresAt: expiresAt)
    }

    private static func digest(of token: String) -> String {
        Hex.string(SHA256.hash(data: Data(token.utf8)))
    }
}
