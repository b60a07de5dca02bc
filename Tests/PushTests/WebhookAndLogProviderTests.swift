import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import PushStandIns
import Synchronization
import Testing

/// The bodies a test gateway received.
private final class Received: Sendable {
    let bodies = Mutex<[ParseValue]>([])
}

@Suite struct WebhookAndLogProviderTests {
    /// A gateway answering by token: `ok` 200, `gone` 410, `busy` 429 with Retry-After 3, `down` 502, anything else 400.
    private static func gateway(received: Received) async throws -> StandInServer {
        try await StandInServer { request in
            let body = (try? JSONParser.parse(request.body)) ?? .null
            received.bodies.withLock { $0.append(body) }
            switch body.objectValue?["token"]?.stringValue {
            case "ok": return StandInResponse(status: 200)
            case "gone": return StandInResponse(status: 410)
            case "busy": return StandInResponse(status: 429, headers: [("retry-after", "3")])
            case "down": return StandInResponse(status: 502)
            default: return StandInResponse(status: 400)
            }
        }
    }

    @Test func theWebhookPostsTheNotificationAndMapsTheStatus() async throws {
        let received = Received()
        let gateway = try await Self.gateway(received: received)
        let provider = WebhookPushProvider(url: gateway.url + "/push", trustRoots: gateway.trustRoots)
        func send(_ token: String) async -> PushOutcome {
            await provider.send(
                PushMessage(
                    id: "m-\(token)", deviceType: "web", token: token, data: ["alert": "Hi"],
                    expiration: Date(timeIntervalSince1970: 1_800_000_000), collapseId: "c"))
        }
        #expect(await send("ok") == .sent)
        #expect(await send("gone") == .invalidToken(reason: "HTTP 410"))
        #expect(await send("busy") == .retry(reason: "HTTP 429", retryAfter: .seconds(3)))
        #expect(await send("down") == .retry(reason: "HTTP 502"))
        #expect(await send("bad") == .failed(reason: "HTTP 400"))
        let first = received.bodies.withLock { $0.first }
        #expect(
            first == [
                "id": "m-ok", "deviceType": "web", "token": "ok", "data": ["alert": "Hi"], "expiration": 1_800_000_000_000,
                "collapseId": "c",
            ])
        await provider.shutdown()
        try await gateway.stop()
    }

    @Test func anUnreachableWebhookIsRetried() async throws {
        let gateway = try await Self.gateway(received: Received())
        let url = gateway.url
        try await gateway.stop()
        let provider = WebhookPushProvider(url: url, trustRoots: gateway.trustRoots)
        let outcome = await provider.send(PushMessage(id: "m", deviceType: "web", token: "ok", data: [:]))
        guard case .retry = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        await provider.shutdown()
    }

    @Test func theLogProviderLogsAndAnswersSent() async {
        let logs = CapturedLogs()
        let provider = LogPushProvider(appId: "shop", logger: logs.logger(label: "push"))
        let message = PushMessage(id: "m1", deviceType: "web", token: "0123456789abcdef", data: ["alert": "Hi"])
        #expect(await provider.send(message) == .sent)
        let entry = logs.all.first
        #expect(entry?.metadata["app"] == "shop")
        #expect(entry?.metadata["token"] == "01234567…")
        #expect(entry?.metadata["payload"] == #"{"alert":"Hi"}"#)
    }
}
