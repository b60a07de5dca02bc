import Cloudlet
import Crypto
import Foundation
import Synchronization

/// The token APNs takes as `authorization: bearer`: an ES256 JWT with `kid` (the key id) in its
/// header and `iss` (the team id) and `iat` in its claims. APNs refuses a token older than an hour
/// (`ExpiredProviderToken`) and one renewed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so one token is made and reused by every send until it is
/// ``renewalAge`` old, and never replaced before it is ``minimumAge`` old.
final class APNsProviderToken: Sendable {
    /// A token this old is replaced before its next use.
    static let renewalAge: TimeInterval = 50 * 60
    /// A token younger than this is never replaced, even when APNs calls it expired.
    static let minimumAge: TimeInterval = 20 * 60

    private struct Token {
        var value: String
        var issuedAt: Date
    }

    private let key: P256.Signing.PrivateKey
    private let keyId: String
    private let teamId: String
    private let clock: any CloudletClock
    private let token = Mutex<Token?>(nil)

    init(key: P256.Signing.PrivateKey, keyId: String, teamId: String, clock: any CloudletClock) {
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.clock = clock
    }

    /// The token to send now: the one in use, or a new one if there is none or it is ``renewalAge`` old.
    func current() throws -> String {
        let now = clock.now
        return try token.withLock { token in
            if let token, now.timeIntervalSince(token.issuedAt) < Self.renewalAge { return token.value }
            return try issue(at: now, into: &token)
        }
    }

    /// The token to retry with after APNs answered `ExpiredProviderToken` to `rejected`: a new one
    /// if `rejected` is still the one in use and at least ``minimumAge`` old, the one in use if
    /// another send already replaced it, or nil when it is too young to be replaced.
    func renewed(replacing rejected: String) throws -> String? {
        let now = clock.now
        return try token.withLock { token in
            guard let current = token, current.value == rejected else { return try token?.value ?? issue(at: now, into: &token) }
            guard now.timeIntervalSince(current.issuedAt) >= Self.minimumAge else { return nil }
            return try issue(at: now, into: &token)
        }
    }

    private func issue(at now: Date, into token: inout Token?) throws -> String {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let value = try JSONWebToken.es256(
            header: ["kid": .string(keyId)], claims: ["iss": .string(teamId), "iat": .number(issuedAt.timeIntervalSince1970)], key: key)
        token = Token(value: value, issuedAt: issuedAt)
        return value
    }
}
