import Cloudlet
import Foundation
import NIOHTTP1

/// The OAuth access token FCM requests carry, got by Google's JWT bearer grant: an RS256
/// assertion signed with the service account's key (`iss` its email, `scope` FCM's, `aud` its
/// `token_uri`, an hour long) is exchanged at `token_uri`, and the token it gives is kept until
/// ``renewalMargin`` before it expires. Concurrent sends share one exchange.
actor FCMAccessToken {
    /// The scope FCM's HTTP v1 API asks for.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// A token is replaced this long before Google said it expires.
    static let renewalMargin: TimeInterval = 5 * 60

    private let account: FCMServiceAccount
    private let transport: PushHTTPTransport
    private let clock: any CloudletClock
    private var token: (value: String, expiresAt: Date)?
    private var exchange: Task<(value: String, expiresAt: Date), any Error>?

    init(account: FCMServiceAccount, transport: PushHTTPTransport, clock: any CloudletClock) {
        self.account = account
        self.transport = transport
        self.clock = clock
    }

    /// The token to send with now, exchanging a new assertion when there is none or it is about to expire.
    func current() async throws -> String {
        if let token, clock.now < token.expiresAt { return token.value }
        let exchange = self.exchange ?? Task { try await self.exchangeAssertion() }
        self.exchange = exchange
        defer { self.exchange = nil }
        let fresh = try await exchange.value
        token = fresh
        return fresh.value
    }

    /// Forgets `rejected` (FCM answered 401 to it), so that the next ``current()`` makes a new one.
    func invalidate(_ rejected: String) {
        if token?.value == rejected { token = nil }
    }

    /// The token endpoint is busy or failing: worth another try later.
    struct TokenEndpointUnavailable: Error, CustomStringConvertible {
        var status: Int
        var description: String { "the OAuth token endpoint answered HTTP \(status)" }
    }

    private func exchangeAssertion() async throws -> (value: String, expiresAt: Date) {
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        let assertion = try JSONWebToken.rs256(
            claims: [
                "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI),
                "iat": .number(now), "exp": .number(now + 3600),
            ], key: account.privateKey)
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let response = try await transport.post(
            account.tokenURI, headers: ["content-type": "application/x-www-form-urlencoded"], body: Array(form.utf8))
        let body = response.jsonObject
        if response.status == 429 || response.status >= 500 { throw TokenEndpointUnavailable(status: response.status) }
        guard response.status == 200, let value = body?["access_token"]?.stringValue, let lifetime = body?["expires_in"]?.doubleValue
        else {
            let error = body?["error_description"]?.stringValue ?? body?["error"]?.stringValue ?? "HTTP \(response.status)"
            throw PushKeyError("the OAuth token exchange failed: \(error)")
        }
        return (value, Date(timeIntervalSince1970: now + max(0, lifetime - Self.renewalMargin)))
    }
}
