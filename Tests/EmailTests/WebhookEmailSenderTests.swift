import Cloudlet
import CloudletServer
import Foundation
import PushStandIns
import Synchronization
import Testing

@Suite struct WebhookEmailSenderTests {
    @Test func theWebhookPostsTheMessageAndSaysWhetherAFailureIsWorthAnotherTry() async throws {
        let received = Mutex<[ParseValue]>([])
        let gateway = try await StandInServer { request in
            let body = (try? JSONParser.parse(request.body)) ?? .null
            received.withLock { $0.append(body) }
            switch body["to"]?.stringValue {
            case "ok@example.com": return StandInResponse(status: 202)
            case "busy@example.com": return StandInResponse(status: 503)
            default: return StandInResponse(status: 422)
            }
        }
        let sender = WebhookEmailSender(url: gateway.url + "/mail", appId: "shop", from: "no-reply@shop.example", trustRoots: gateway.trustRoots)
        try await sender.send(EmailMessage(to: "ok@example.com", subject: "Hi", text: "Link: https://x.example/?token=1"))
        #expect(
            received.withLock { $0 } == [
                [
                    "appId": "shop", "from": "no-reply@shop.example", "to": "ok@example.com", "subject": "Hi",
                    "text": "Link: https://x.example/?token=1",
                ]
            ])
        for (to, permanent) in [("busy@example.com", false), ("refused@example.com", true)] {
            do {
                try await sender.send(EmailMessage(to: to, subject: "Hi", text: "x"))
                Issue.record("\(to) was sent")
            } catch let failure as EmailSendFailure {
                #expect(failure.isPermanent == permanent, "\(to): \(failure)")
            }
        }
        try await gateway.stop()
    }
}
