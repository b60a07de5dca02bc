import Cloudlet
import CloudletServer
import CloudletServerTesting
import HTTPTypes
import CloudletTesting
import Foundation
import PostgresTestServer
import PushStandIns
import Testing

@Suite struct EmailRequestBoundsTests {
    @Test(arguments: ServedStore.allCases) func hostileEmailsAreRefusedAndNeverReachTheSMTPServer(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EmailTestServer.with(email: try smtp.settings(in: folder), store: store) { server in
            let client = server.client()
            _ = try await server.signUp("fay", email: "fay@example.com")
            let hostile: [(ParseValue, Int)] = [
                (.string(String(repeating: "a", count: 100_000) + "@example.com"), 125),
                (.string("fay@example.com\r\nRCPT TO:<evil@attacker.example>"), 125),
                (.string("fay@example.com>\nBcc: evil@attacker.example"), 125),
                (.number(42), 125), (["$regex": ".*"], 125), (.string(""), 204), (.null, 204),
            ]
            for path in ["/requestPasswordReset", "/verificationEmailRequest"] {
                for (email, code) in hostile {
                    let reply = try await client.post(path, ["email": email])
                    #expect(reply.status == 400 && reply["code"] == .number(Double(code)), "\(path) \(email)")
                }
                #expect(try await client.post(path, [:])["code"] == 204)
            }
            let signUp = try await client.post(
                "/users", ["username": "mallory", "password": "p", "email": "m@example.com\r\nBcc: evil@attacker.example"])
            #expect(signUp.status == 400 && signUp["code"] == 125)

            // The link pages refuse what is not a token, and a form past its bound.
            for token in ["", "x", String(repeating: "0", count: 64), "<script>", String(repeating: "a", count: 10_000)] {
                let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                #expect(try await server.page(.get, "/parse/apps/a/verify_email?token=\(escaped)").status == 400)
                let form = try await server.page(.get, "/parse/apps/a/request_password_reset?token=\(escaped)")
                #expect(form.status == 400 && !form.html.contains("<script>"))
            }
            let huge = try await server.page(
                .post, "/parse/apps/a/request_password_reset", form: ["token": "0", "new_password": String(repeating: "p", count: 100_000)])
            #expect(huge.status == 413)

            #expect(try await client.post("/requestPasswordReset", ["email": "fay@example.com"]).status == 200)
            _ = try await smtp.waitForMessages(1)
            #expect(!smtp.commandLines.contains { $0.contains("evil") || $0.contains("attacker") })
        }
        try await smtp.stop()
    }

    @Test(arguments: ServedStore.allCases) func requestsForOneEmailAreBoundedWhetherOrNotItIsAUsers(store: ServedStore) async throws {
        try await EmailTestServer.with(email: EmailSettings(), store: store) { server in
            let client = server.client()
            for email in ["nobody@example.com", "ghost@example.com"] {
                for _ in 0..<EmailRequestThrottle.maximumPerEmail {
                    #expect(try await client.post("/requestPasswordReset", ["email": .string(email)]).status == 200)
                }
                let refused = try await client.post("/verificationEmailRequest", ["email": .string(email.uppercased())])
                #expect(refused.status == 429 && refused["code"] == 155)
            }
        }
    }

    @Test(arguments: ServedStore.allCases) func aTemporarilyFailingSMTPServerFailsNoRequestAndTheMailIsRetried(store: ServedStore) async throws {
        var behaviour = SMTPStandIn.Behaviour()
        behaviour.temporaryFailures = 1
        let smtp = try await SMTPStandIn(behaviour)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock(start: Date())
        try await EmailTestServer.with(email: try smtp.settings(in: folder), clock: clock, store: store) { server in
            _ = try await server.signUp("gus", email: "gus@example.com")
            #expect(try await server.client().post("/requestPasswordReset", ["email": "gus@example.com"]).body == [:])
            // The first try is refused with 451; the retry waits for the backoff.
            for _ in 0..<500 where !smtp.commandLines.contains(where: { $0.hasPrefix("MAIL FROM") }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(smtp.commandLines.filter { $0.hasPrefix("MAIL FROM") }.count == 1, "the first try reached MAIL FROM")
            // Refused, the message waits for its backoff: nothing more arrives while the clock stands still.
            try await Task.sleep(for: .milliseconds(300))
            #expect(smtp.messages.isEmpty)
            #expect(smtp.commandLines.filter { $0.hasPrefix("MAIL FROM") }.count == 1, "no retry before the backoff")
            // The retry is due after the backoff: time passes until it is sent.
            for _ in 0..<200 where smtp.messages.isEmpty {
                clock.advance(by: .seconds(600))
                try await Task.sleep(for: .milliseconds(50))
            }
            let messages = smtp.messages
            #expect(messages.count == 1 && messages.first?.recipients == ["gus@example.com"])
            #expect(smtp.commandLines.filter { $0.hasPrefix("MAIL FROM") }.count == 2, "refused once, then sent")
        }
        try await smtp.stop()
    }

    @Test func aServerWithoutSTARTTLSIsNeverSentTheCredentials() async throws {
        var behaviour = SMTPStandIn.Behaviour()
        behaviour.offersSTARTTLS = false
        let smtp = try await SMTPStandIn(behaviour)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EmailTestServer.with(email: try smtp.settings(in: folder)) { server in
            _ = try await server.signUp("hal", email: "hal@example.com")
            #expect(try await server.client().post("/requestPasswordReset", ["email": "hal@example.com"]).status == 200)
            for _ in 0..<500 where !smtp.commandLines.contains(where: { $0.hasPrefix("EHLO") }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(smtp.commandLines.contains { $0.hasPrefix("EHLO") }, "the sender reached the server")
            try await Task.sleep(for: .milliseconds(200))
            #expect(smtp.messages.isEmpty)
            #expect(!smtp.commandLines.contains { $0.hasPrefix("AUTH") || $0.hasPrefix("MAIL") })
        }
        try await smtp.stop()
    }
}
