import Cloudlet
import CloudletRuntime
import NIOHTTP1
import NIOSSL

/// Hands each email to the operator's gateway: POSTs `{"appId", "from", "to", "subject", "text"}`
/// as JSON to its URL. 2xx is sent; 429 and 5xx (or no answer) are worth another try; any other
/// status is a permanent failure.
public struct WebhookEmailSender: EmailSender {
    let url: String
    let appId: String
    let from: String?
    let trustRoots: NIOSSLTrustRoots

    public init(url: String, appId: String, from: String?, trustRoots: NIOSSLTrustRoots = .default) {
        self.url = url
        self.appId = appId
        self.from = from
        self.trustRoots = trustRoots
    }

    public func send(_ message: EmailMessage) async throws {
        var body = message.json.objectValue ?? [:]
        body["appId"] = .string(appId)
        body["from"] = from.map(ParseValue.string)
        // One client per message: emails are few, and no connection outlives its send.
        let transport = PushHTTPTransport(trustRoots: trustRoots)
        let answer: Result<Int, any Error>
        do {
            answer = .success(
                try await transport.post(url, headers: ["content-type": "application/json"], body: JSONWriter.bytes(.object(body))).status)
        } catch {
            answer = .failure(error)
        }
        await transport.shutdown()
        guard case .success(let status) = answer else { throw EmailSendFailure("email webhook unreachable: \(answer)") }
        switch status {
        case 200...299: return
        case 429, 500...599: throw EmailSendFailure("email webhook answered HTTP \(status)")
        default: throw EmailSendFailure("email webhook answered HTTP \(status)", isPermanent: true)
        }
    }
}
