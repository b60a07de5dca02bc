import Cloudlet
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// A local APNs: `POST /3/device/<token>` over HTTP/2 and TLS, checking what Apple checks (the
/// ES256 provider token's signature, `kid`, `iss` and age, how often it changes on a connection, the topic, push
/// type, priority, expiration, `apns-id` and payload size) and answering with Apple's statuses,
/// `reason` bodies and headers. What each device token gets is scripted by the test.
public final class APNsStandIn: Sendable {
    /// What the stand-in answers a well-formed notification.
    public enum Answer: Sendable, Hashable {
        /// 200 with `apns-id`.
        case accept
        /// `status` with `{"reason": reason}` and, if given, `Retry-After`.
        case reject(status: Int, reason: String, retryAfter: Int? = nil)
        /// 410 `Unregistered` with the time the token stopped being valid.
        case unregistered(at: Date)
    }

    /// A notification the stand-in accepted.
    public struct Notification: Sendable {
        public var token: String
        public var headers: HTTPHeaders
        public var payload: [UInt8]

        /// The payload as JSON.
        public var json: [String: ParseValue] { (try? JSONParser.parse(payload))?.objectValue ?? [:] }
    }

    private struct State: Sendable {
        var tokens: [String: Date] = [:]
        /// The issue time of the newest token taken on each connection.
        var latestIssue: [Int: Date] = [:]
        var tokenUpdates = 0
        var queued: [String: [Answer]] = [:]
        var answer: @Sendable (String) -> Answer = { _ in .accept }
        var accepted: [Notification] = []
        var acceptedCount = 0
    }

    /// The server; its `url` is the provider's base URL.
    public let server: StandInServer
    private let state: Locked<State>

    /// A stand-in taking tokens signed by `publicKey` with `keyId` for `teamId`, for `topic`, judging
    /// token ages by `now`, answering each notification `responseDelay` after it arrives. With
    /// `recordsNotifications` false only the count of accepted ones is kept.
    public init(
        publicKey: P256.Signing.PublicKey, keyId: String, teamId: String, topic: String, now: @escaping @Sendable () -> Date = Date.init,
        recordsNotifications: Bool = true, responseDelay: TimeAmount = .zero
    ) async throws {
        let state = Locked(State())
        self.state = state
        server = try await StandInServer(responseDelay: responseDelay) { request in
            Self.answer(
                request, publicKey: publicKey, keyId: keyId, teamId: teamId, topic: topic, now: now(), records: recordsNotifications,
                state: state)
        }
    }

    /// Answers every later notification for a token by `script` (by default every one is accepted).
    public func script(_ script: @escaping @Sendable (String) -> Answer) {
        state.withLock { $0.answer = script }
    }

    /// Answers the next notifications for `token` with `answers`, in order, before the script.
    public func queue(_ answers: [Answer], for token: String) {
        state.withLock { $0.queued[token, default: []].append(contentsOf: answers) }
    }

    /// The notifications accepted so far, in order of arrival (when recorded).
    public var accepted: [Notification] { state.withLock { $0.accepted } }
    /// How many notifications were accepted.
    public var acceptedCount: Int { state.withLock { $0.acceptedCount } }
    /// How many distinct provider tokens were taken.
    public var tokenUpdates: Int { state.withLock { $0.tokenUpdates } }

    public func stop() async throws {
        try await server.stop()
    }

    private static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity"]

    private static func answer(
        _ request: StandInRequest, publicKey: P256.Signing.PublicKey, keyId: String, teamId: String, topic: String, now: Date,
        records: Bool, state: Locked<State>
    ) -> StandInResponse {
        let apnsId = request.headers.first(name: "apns-id") ?? UUID().uuidString
        func reject(_ status: Int, _ reason: String, extra: [String: ParseValue] = [:], retryAfter: Int? = nil) -> StandInResponse {
            var headers = [("apns-id", apnsId), ("content-type", "application/json")]
            if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
            return StandInResponse(
                status: status, headers: headers, body: JSONWriter.bytes(.object(extra.merging(["reason": .string(reason)]) { $1 })))
        }
        guard request.method == .POST else { return reject(405, "MethodNotAllowed") }
        guard request.path.hasPrefix("/3/device/") else { return reject(404, "BadPath") }
        let token = String(request.path.dropFirst("/3/device/".count))
        guard let authorization = request.headers.first(name: "authorization"), authorization.hasPrefix("bearer ") else {
            return reject(403, "MissingProviderToken")
        }
        let bearer = String(authorization.dropFirst("bearer ".count))
        if let refusal = checkProviderToken(
            bearer, on: request.connection, publicKey: publicKey, keyId: keyId, teamId: teamId, now: now, state: state)
        {
            return reject(refusal.status, refusal.reason)
        }
        guard let requestTopic = request.headers.first(name: "apns-topic") else { return reject(400, "MissingTopic") }
        guard requestTopic == topic else { return reject(400, "TopicDisallowed") }
        guard let pushType = request.headers.first(name: "apns-push-type"), pushTypes.contains(pushType) else {
            return reject(400, "InvalidPushType")
        }
        if let priority = request.headers.first(name: "apns-priority"), !["1", "5", "10"].contains(priority) { return reject(400, "BadPriority") }
        if let expiration = request.headers.first(name: "apns-expiration"), Int(expiration) == nil { return reject(400, "BadExpirationDate") }
        if let id = request.headers.first(name: "apns-id"), UUID(uuidString: id) == nil { return reject(400, "BadMessageId") }
        if let collapseId = request.headers.first(name: "apns-collapse-id"), collapseId.utf8.count > 64 { return reject(400, "BadCollapseId") }
        guard !request.body.isEmpty else { return reject(400, "PayloadEmpty") }
        guard request.body.count <= 4096 else { return reject(413, "PayloadTooLarge") }
        guard !token.isEmpty, token.allSatisfy(\.isHexDigit) else { return reject(400, "BadDeviceToken") }
        let answer = state.withLock { state -> Answer in
            let answer = state.queued[token]?.isEmpty == false ? state.queued[token]!.removeFirst() : state.answer(token)
            if answer == .accept {
                state.acceptedCount += 1
                if records { state.accepted.append(Notification(token: token, headers: request.headers, payload: request.body)) }
            }
            return answer
        }
        switch answer {
        case .accept: return StandInResponse(status: 200, headers: [("apns-id", apnsId)])
        case .reject(let status, let reason, let retryAfter): return reject(status, reason, retryAfter: retryAfter)
        case .unregistered(let date):
            return reject(410, "Unregistered", extra: ["timestamp": .number((date.timeIntervalSince1970 * 1000).rounded())])
        }
    }

    /// Apple's checks of a provider token: nil if it is good, else the status and reason it gets. A
    /// new token is refused on a connection that took another in the last 20 minutes; a process that
    /// starts afresh opens a new connection with a token of its own.
    private static func checkProviderToken(
        _ bearer: String, on connection: Int, publicKey: P256.Signing.PublicKey, keyId: String, teamId: String, now: Date, state: Locked<State>
    ) -> (status: Int, reason: String)? {
        if let issuedAt = state.withLock({ $0.tokens[bearer] }) {
            return now.timeIntervalSince(issuedAt) > 3600 ? (403, "ExpiredProviderToken") : nil
        }
        guard let jwt = StandInJWT(bearer[...]), jwt.header["alg"]?.stringValue == "ES256", jwt.header["kid"]?.stringValue == keyId,
            jwt.claims["iss"]?.stringValue == teamId, let issuedAtSeconds = jwt.claims["iat"]?.doubleValue,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            publicKey.isValidSignature(signature, for: jwt.signingInput)
        else { return (403, "InvalidProviderToken") }
        let issuedAt = Date(timeIntervalSince1970: issuedAtSeconds)
        guard now.timeIntervalSince(issuedAt) <= 3600 else { return (403, "ExpiredProviderToken") }
        return state.withLock { state in
            if let latest = state.latestIssue[connection], issuedAt.timeIntervalSince(latest) < 20 * 60 {
                return (429, "TooManyProviderTokenUpdates")
            }
            state.tokens[bearer] = issuedAt
            state.latestIssue[connection] = issuedAt
            state.tokenUpdates += 1
            return nil
        }
    }
}
