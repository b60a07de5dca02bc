import Cloudlet
import CloudletServer
import CloudletServerTesting
import HTTPTypes
import CloudletTesting
import Foundation
import PostgresTestServer
import PushStandIns
import Testing

@Suite struct PasswordResetTests {
    @Test(arguments: ServedStore.allCases) func aResetLinkGoesOutOverSMTPAndSetsANewPasswordEndingEverySession(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EmailTestServer.with(email: try smtp.settings(in: folder), store: store) { server in
            let client = server.client()
            let signedUp = try await server.signUp("alice", email: "alice@example.com")
            let loggedIn = try #require(try await client.get("/login", query: ["username": "alice", "password": "first-password"])["sessionToken"]?.stringValue)
            // Both sessions are used once, so the server holds them in its session cache when the password changes.
            for session in [signedUp, loggedIn] {
                #expect(try await client.get("/users/me", sessionToken: session).status == 200)
            }

            let asked = try await client.post("/requestPasswordReset", ["email": "alice@example.com"])
            #expect(asked.status == 200 && asked.body == [:])
            let message = try #require(try await smtp.waitForMessages(1).first)
            #expect(message.overTLS && message.user == "mailer")
            #expect(message.from == "no-reply@shop.example" && message.recipients == ["alice@example.com"])
            #expect(message.header("Subject") == "Password Reset for Shop")
            #expect(message.body.contains("your username is 'alice'"))
            let link = try #require(message.link("request_password_reset"))
            #expect(link.hasPrefix("/parse/apps/a/request_password_reset?token="))

            let form = try await server.page(.get, link)
            #expect(form.status == 200 && form.html.contains("name=\"new_password\"") && form.html.contains("Shop"))
            let token = String(link.split(separator: "=").last!)
            let empty = try await server.page(.post, "/parse/apps/a/request_password_reset", form: ["token": token, "new_password": ""])
            #expect(empty.status == 400 && empty.html.contains("Enter a new password."))
            let changed = try await server.page(.post, "/parse/apps/a/request_password_reset", form: ["token": token, "new_password": "second-password"])
            #expect(changed.status == 200 && changed.html.contains("Password changed"))

            for session in [signedUp, loggedIn] {
                #expect(try await client.get("/users/me", sessionToken: session)["code"] == 209)
            }
            #expect(try await client.get("/login", query: ["username": "alice", "password": "first-password"])["code"] == 101)
            #expect(try await client.get("/login", query: ["username": "alice", "password": "second-password"]).status == 200)

            // The link was good once.
            #expect(try await server.page(.get, link).status == 400)
            let again = try await server.page(.post, "/parse/apps/a/request_password_reset", form: ["token": token, "new_password": "third-password"])
            #expect(again.status == 400 && again.html.contains("Invalid link"))
            #expect(try await client.get("/login", query: ["username": "alice", "password": "third-password"])["code"] == 101)
        }
        try await smtp.stop()
    }

    @Test(arguments: ServedStore.allCases) func anUnknownEmailIsAnsweredAsAKnownOneAndNothingIsSent(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EmailTestServer.with(email: try smtp.settings(in: folder), store: store) { server in
            let client = server.client()
            _ = try await server.signUp("bob", email: "bob@example.com")
            for path in ["/requestPasswordReset", "/verificationEmailRequest"] {
                let unknown = try await client.post(path, ["email": "nobody@example.com"])
                #expect(unknown.status == 200 && unknown.body == [:])
            }
            #expect(try await client.post("/requestPasswordReset", ["email": "bob@example.com"]).body == [:])
            let messages = try await smtp.waitForMessages(1)
            #expect(messages.count == 1 && messages.first?.recipients == ["bob@example.com"])
            #expect(!smtp.commandLines.contains { $0.contains("nobody") })
        }
        try await smtp.stop()
    }

    @Test(arguments: ServedStore.allCases) func anExpiredLinkOrAnotherAppsLinkDoesNotWork(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock(start: Date())
        var settings = try smtp.settings(in: folder)
        settings.resetLinkSeconds = 600
        try await EmailTestServer.with(email: settings, clock: clock, store: store) { server in
            _ = try await server.signUp("carol", email: "carol@example.com")
            _ = try await server.signUp("carol", email: "carol@example.com", app: "b")
            #expect(try await server.client().post("/requestPasswordReset", ["email": "carol@example.com"]).status == 200)
            let link = try #require(try await smtp.waitForMessages(1).first?.link("request_password_reset"))
            let token = String(link.split(separator: "=").last!)

            // App b has a user of the same name and email: a's token is nothing to it.
            let elsewhere = link.replacingOccurrences(of: "/apps/a/", with: "/apps/b/")
            #expect(try await server.page(.get, elsewhere).status == 400)
            let posted = try await server.page(.post, "/parse/apps/b/request_password_reset", form: ["token": token, "new_password": "taken-over"])
            #expect(posted.status == 400)
            #expect(try await server.client("b").get("/login", query: ["username": "carol", "password": "taken-over"])["code"] == 101)
            #expect(try await server.page(.get, link).status == 200)

            clock.advance(by: .seconds(601))
            #expect(try await server.page(.get, link).status == 400)
            #expect(try await server.page(.post, "/parse/apps/a/request_password_reset", form: ["token": token, "new_password": "late"]).status == 400)
            #expect(try await server.client().get("/login", query: ["username": "carol", "password": "first-password"]).status == 200)
        }
        try await smtp.stop()
    }
}
