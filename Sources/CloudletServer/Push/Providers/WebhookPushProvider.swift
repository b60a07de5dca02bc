import Cloudlet
import CloudletRuntime
import Foundation
import NIOHTTP1
import NIOSSL

/// Hands each notification to a custom gateway: POSTs `{"id", "deviceType", "token", "data",
/// "expiration", "collapseId"}` as JSON to its URL (`expiration` in milliseconds since 1970).
/// 2xx is sent, 410 an invalid token, 429 and 5xx worth another try (after `Retry-After` when
/// given), anything else a failure kept as `HTTP <status>`.
public final class WebhookPushProvider: PushProvider, PushConnectionOwner {
    private let url: String
    private let transport: PushHTTPTransport

    /// A provider posting to `url`, trusting `trustRoots` for HTTPS.
    public init(url: String, trustRoots: NIOSSLTrustRoots = .default) {
        self.url = url
        transport = PushHTTPTransport(trustRoots: trustRoots)
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        var body: [String: ParseValue] = [
            "id": .string(message.id), "deviceType": .string(message.deviceType), "token": .string(message.token),
            "data": .object(message.data),
        ]
        if let expiration = message.expiration { body["expiration"] = .number((expiration.timeIntervalSince1970 * 1000).rounded()) }
        if let collapseId = message.collapseId { body["collapseId"] = .string(collapseId) }
        do {
            let response = try await transport.post(url, headers: ["content-type": "application/json"], body: JSONWriter.bytes(.object(body)))
            switch response.status {
            case 200...299: return .sent
            case 410: return .invalidToken(reason: "HTTP 410")
            case 429, 500...599: return .retry(reason: "HTTP \(response.status)", retryAfter: response.retryAfter)
            default: return .failed(reason: "HTTP \(response.status)")
            }
        } catch {
            return .retry(reason: "webhook unreachable: \(error)")
        }
    }

    public func shutdown() async {
        await transport.shutdown()
    }
}
