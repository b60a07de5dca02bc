import Cloudlet
import CloudletRuntime
import Crypto
import Foundation
import NIOHPACK
import NIOHTTP1
import NIOSSL
import Synchronization

/// Sends to Apple's push service over HTTP/2 with token authentication: `POST /3/device/<token>`
/// with `apns-topic`, `apns-push-type`, `apns-priority`, `apns-expiration`, `apns-collapse-id` and
/// `apns-id` (the message's id, so that APNs reports a retried delivery under the same id).
/// Each answer maps to an outcome by Apple's status and `reason`; `ExpiredProviderToken` is
/// answered here, with a new token and one more try.
public final class APNsProvider: PushProvider, PushConnectionOwner {
    /// Where APNs listens.
    public enum Environment: String, Sendable, CaseIterable {
        case production
        case sandbox

        /// The base URL of the environment's host.
        public var url: String {
            switch self {
            case .production: "https://api.push.apple.com"
            case .sandbox: "https://api.sandbox.push.apple.com"
            }
        }
    }

    /// APNs refuses a payload over this many bytes (`PayloadTooLarge`).
    public static let maximumPayloadBytes = 4096

    private let token: APNsProviderToken
    private let topic: String
    private let transport: HTTP2PushTransport
    private let lastPayload = Mutex<EncodedPayload?>(nil)

    /// A provider signing with `key` (the `.p8` key's), `keyId` and `teamId`, for the app `topic`
    /// (its bundle id), at `baseURL` (an ``Environment``'s or a local one), trusting `trustRoots`,
    /// over at most `connections` HTTP/2 connections (4 when nil; a further one opens only when
    /// the open ones are busy, see ``HTTP2PushTransport``).
    public init(
        key: P256.Signing.PrivateKey, keyId: String, teamId: String, topic: String, baseURL: String,
        trustRoots: NIOSSLTrustRoots = .default, connections: Int? = nil, clock: any CloudletClock
    ) {
        token = APNsProviderToken(key: key, keyId: keyId, teamId: teamId, clock: clock)
        self.topic = topic
        transport = HTTP2PushTransport(
            baseURL: baseURL, trustRoots: trustRoots, connections: connections ?? HTTP2PushTransport.defaultConnections)
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        guard !message.token.isEmpty, message.token.utf8.count <= 200, message.token.utf8.allSatisfy(Self.isHexDigit) else {
            return .invalidToken(reason: "BadDeviceToken")
        }
        let payload = encodedPayload(of: message.data)
        guard payload.body.count <= Self.maximumPayloadBytes else { return .jobFailed(reason: "PayloadTooLarge") }
        // Checked by `request.push`, but not for a job written straight into `_PushStatus`; over 64
        // bytes is Apple's rule, which HTTP/2 cannot know.
        if let collapseId = message.collapseId, !PushNotification.isValidCollapseId(collapseId) { return .jobFailed(reason: "BadCollapseId") }
        do {
            let bearer = try token.current()
            let answer = try await post(message, payload, bearer: bearer)
            guard answer.reason == "ExpiredProviderToken" else { return answer.outcome }
            guard let renewed = try token.renewed(replacing: bearer) else { return answer.outcome }
            return try await post(message, payload, bearer: renewed).outcome
        } catch {
            return .unanswered(by: "APNs", error)
        }
    }

    public func shutdown() async {
        await transport.shutdown()
    }

    /// A notification's body and the headers that follow from it, with the data it was made from.
    private struct EncodedPayload {
        var data: [String: ParseValue]
        var pushType: String
        var priority: String
        var body: [UInt8]
    }

    /// The payload of `data`: the one encoded for the previous send when the data is the same (the
    /// messages of one job share it but for an incremented badge), else encoded now.
    private func encodedPayload(of data: [String: ParseValue]) -> EncodedPayload {
        if let last = lastPayload.withLock({ $0 }), last.data == data { return last }
        let payload = APNsPayload(data: data)
        let encoded = EncodedPayload(
            data: data, pushType: payload.pushType, priority: payload.priority, body: JSONWriter.bytes(.object(payload.json)))
        lastPayload.withLock { $0 = encoded }
        return encoded
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    private func post(_ message: PushMessage, _ payload: EncodedPayload, bearer: String) async throws -> APNsAnswer {
        var headers: HPACKHeaders = [
            "authorization": "bearer \(bearer)", "apns-topic": topic, "apns-push-type": payload.pushType,
            "apns-priority": payload.priority, "content-type": "application/json",
            "apns-expiration": message.expiration.map { String(Int($0.timeIntervalSince1970.rounded(.down))) } ?? "0",
        ]
        headers.add(name: "apns-id", value: message.id, indexing: .nonIndexable)
        if let collapseId = message.collapseId { headers.add(name: "apns-collapse-id", value: collapseId) }
        return APNsAnswer(try await transport.post("/3/device/" + message.token, headers: headers, body: payload.body))
    }
}

/// One answer of APNs: its status, and the `reason` and `timestamp` of its JSON body.
struct APNsAnswer {
    var status: Int
    var reason: String?
    /// When APNs learnt the token was no longer valid (410 only).
    var unregisteredAt: Date?
    var retryAfter: Duration?

    init(_ response: PushHTTPResponse) {
        status = response.status
        retryAfter = response.retryAfter
        let body = response.jsonObject
        reason = body?["reason"]?.stringValue
        unregisteredAt = body?["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// What the answer means for the delivery, by Apple's documented statuses and reasons.
    var outcome: PushOutcome {
        let reason = reason ?? "HTTP \(status)"
        switch (status, reason) {
        case (200, _): return .sent
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"): return .invalidToken(reason: reason)
        case (410, _): return .invalidToken(reason: reason, unregisteredAt: unregisteredAt)
        case (413, _), (_, "PayloadTooLarge"): return .jobFailed(reason: "PayloadTooLarge")
        case (403, "ExpiredProviderToken"), (429, _), (500...599, _): return .retry(reason: reason, retryAfter: retryAfter)
        default: return .failed(reason: reason)
        }
    }
}
