import Cloudlet
import Foundation
import NIOHTTP1
import _CryptoExtras

/// A local FCM over HTTP/2 and TLS: Google's OAuth token endpoint (`POST /token`, the JWT bearer
/// grant: the RS256 assertion is checked against the service account's public key, its `iss`,
/// `scope`, `aud` and times) and `POST /v1/projects/<id>/messages:send` (the access token checked),
/// answering `{"name": …}` or Google's error JSON with its `FcmError` code and `Retry-After`.
/// What each registration token gets is scripted by the test.
public final class FCMStandIn: Sendable {
    /// What the stand-in answers a message.
    public enum Answer: Sendable, Hashable {
        case accept
        /// Google's error for `errorCode` (`UNREGISTERED`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`,
        /// `UNAVAILABLE`, `INTERNAL`, `SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`), with
        /// `Retry-After` if given.
        case error(String, retryAfter: Int? = nil)
    }

    private struct State: Sendable {
        var accessTokens: [String: Date] = [:]
        var exchanges = 0
        var queued: [String: [Answer]] = [:]
        var accepted: [[String: ParseValue]] = []
        var acceptedCount = 0
    }

    /// The server; its `url` is the provider's base URL, and `url + "/token"` the key's `token_uri`.
    public let server: StandInServer
    private let state: Locked<State>

    /// A stand-in for project `projectId`, taking assertions of `clientEmail` signed by `publicKey`,
    /// giving access tokens that last `tokenLifetime` seconds, judging times by `now`.
    public init(
        projectId: String, clientEmail: String, publicKey: _RSA.Signing.PublicKey, tokenLifetime: Int = 3600,
        now: @escaping @Sendable () -> Date = Date.init, recordsMessages: Bool = true
    ) async throws {
        let state = Locked(State())
        self.state = state
        let audience = Locked("")
        server = try await StandInServer { request in
            let now = now()
            switch (request.method, request.path) {
            case (.POST, "/token"):
                return Self.exchange(
                    request, clientEmail: clientEmail, publicKey: publicKey, audience: audience.withLock { $0 }, lifetime: tokenLifetime,
                    now: now, state: state)
            case (.POST, "/v1/projects/\(projectId)/messages:send"):
                return Self.send(request, projectId: projectId, now: now, records: recordsMessages, state: state)
            default:
                return Self.error(404, "NOT_FOUND", "no such method")
            }
        }
        audience.withLock { $0 = server.url + "/token" }
    }

    /// Answers the next messages for `token` with `answers`, in order; then they are accepted.
    public func queue(_ answers: [Answer], for token: String) {
        state.withLock { $0.queued[token, default: []].append(contentsOf: answers) }
    }

    /// Makes every access token given so far unknown, as if it had been revoked.
    public func revokeAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }

    /// The `message` objects accepted so far (when recorded).
    public var accepted: [[String: ParseValue]] { state.withLock { $0.accepted } }
    /// How many messages were accepted.
    public var acceptedCount: Int { state.withLock { $0.acceptedCount } }
    /// How many assertions were exchanged for access tokens.
    public var exchanges: Int { state.withLock { $0.exchanges } }

    public func stop() async throws {
        try await server.stop()
    }

    private static func exchange(
        _ request: StandInRequest, clientEmail: String, publicKey: _RSA.Signing.PublicKey, audience: String, lifetime: Int, now: Date,
        state: Locked<State>
    ) -> StandInResponse {
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        func invalidGrant(_ description: String) -> StandInResponse {
            StandInResponse(
                status: 400, headers: [("content-type", "application/json")],
                body: JSONWriter.bytes(["error": "invalid_grant", "error_description": .string(description)]))
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else { return invalidGrant("unsupported grant_type") }
        guard let assertion = form["assertion"], let jwt = StandInJWT(assertion[...]), jwt.header["alg"]?.stringValue == "RS256",
            let signature = Optional(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature)),
            publicKey.isValidSignature(signature, for: jwt.signingInput, padding: .insecurePKCS1v1_5)
        else { return invalidGrant("Invalid JWT Signature.") }
        guard jwt.claims["iss"]?.stringValue == clientEmail else { return invalidGrant("Invalid issuer") }
        guard jwt.claims["aud"]?.stringValue == audience else { return invalidGrant("Invalid JWT: Failed audience check.") }
        guard jwt.claims["scope"]?.stringValue?.split(separator: " ").contains("https://www.googleapis.com/auth/firebase.messaging") == true
        else { return invalidGrant("Invalid scope") }
        guard let issuedAt = jwt.claims["iat"]?.doubleValue, let expires = jwt.claims["exp"]?.doubleValue, expires - issuedAt <= 3600,
            expires > now.timeIntervalSince1970, issuedAt <= now.timeIntervalSince1970 + 60
        else { return invalidGrant("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.") }
        let token = state.withLock { state in
            state.exchanges += 1
            let token = "ya29.standin-\(state.exchanges)"
            state.accessTokens[token] = now + TimeInterval(lifetime)
            return token
        }
        return StandInResponse(
            status: 200, headers: [("content-type", "application/json")],
            body: JSONWriter.bytes(["access_token": .string(token), "expires_in": .number(Double(lifetime)), "token_type": "Bearer"]))
    }

    private static func send(_ request: StandInRequest, projectId: String, now: Date, records: Bool, state: Locked<State>) -> StandInResponse {
        let bearer = request.headers.first(name: "authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, let expiry = state.withLock({ $0.accessTokens[bearer] }), expiry > now else {
            return error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        }
        guard let message = (try? JSONParser.parse(request.body))?.objectValue?["message"]?.objectValue,
            let token = message["token"]?.stringValue, !token.isEmpty
        else { return error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.") }
        if let data = message["data"]?.objectValue, data.values.contains(where: { $0.stringValue == nil }) {
            return error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data': expected string values.")
        }
        let answer = state.withLock { state -> Answer in
            let answer = state.queued[token]?.isEmpty == false ? state.queued[token]!.removeFirst() : .accept
            if answer == .accept {
                state.acceptedCount += 1
                if records { state.accepted.append(message) }
            }
            return answer
        }
        switch answer {
        case .accept:
            return StandInResponse(
                status: 200, headers: [("content-type", "application/json")],
                body: JSONWriter.bytes(["name": .string("projects/\(projectId)/messages/\(UUID().uuidString)")]))
        case .error(let code, let retryAfter):
            let (status, canonical, text) = googleError(code)
            return error(status, canonical, text, fcmCode: code, retryAfter: retryAfter)
        }
    }

    /// The HTTP status, canonical status and message Google sends with an `FcmError` code.
    private static func googleError(_ code: String) -> (Int, String, String) {
        switch code {
        case "UNREGISTERED": (404, "NOT_FOUND", "Requested entity was not found.")
        case "INVALID_ARGUMENT": (400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token")
        case "QUOTA_EXCEEDED": (429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send requests'.")
        case "UNAVAILABLE": (503, "UNAVAILABLE", "The service is currently unavailable.")
        case "INTERNAL": (500, "INTERNAL", "Internal error encountered.")
        case "SENDER_ID_MISMATCH": (403, "PERMISSION_DENIED", "SenderId mismatch")
        case "THIRD_PARTY_AUTH_ERROR": (401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service")
        default: (400, "INVALID_ARGUMENT", code)
        }
    }

    private static func error(_ status: Int, _ canonical: String, _ message: String, fcmCode: String? = nil, retryAfter: Int? = nil)
        -> StandInResponse
    {
        var error: [String: ParseValue] = ["code": .number(Double(status)), "message": .string(message), "status": .string(canonical)]
        if let fcmCode {
            error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": .string(fcmCode)]]
        }
        var headers = [("content-type", "application/json; charset=UTF-8")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return StandInResponse(status: status, headers: headers, body: JSONWriter.bytes(["error": .object(error)]))
    }
}
