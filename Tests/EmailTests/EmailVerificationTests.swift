import Cloudlet
import CloudletServer
import CloudletServerTesting
import HTTPTypes
import CloudletTesting
import Foundation
import PostgresTestServer
import PushStandIns
import Testing

@Suite struct EmailVerificationTests {
    @Test(arguments: ServedStore.allCases) func aSignUpIsSentAVerificationLinkAndCannotLogInUntilItIsFollowed(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = try smtp.settings(in: folder)
        settings.verifyUserEmails = true
        settings.preventLoginWithUnverifiedEmail = true
        try await EmailTestServer.with(email: settings, store: store) { server in
            let client = server.client()
            // Until the email is verified the user gets no session, at sign-up or login.
            let signedUp = try await client.post("/users", ["username": "dana", "password": "first-password", "email": "dana@example.com"])
            #expect(signedUp.status == 201 && signedUp["sessionToken"] == nil)
            let id = try #require(signedUp["objectId"]?.stringValue)
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == false)
            let refused = try await client.get("/login", query: ["username": "dana", "password": "first-password"])
            #expect(refused.status == 400 && refused["code"] == 205 && refused["error"] == "User email is not verified.")

            let message = try #require(try await smtp.waitForMessages(1).first)
            #expect(message.header("Subject") == "Please verify your e-mail for Shop" && message.recipients == ["dana@example.com"])
            let link = try #require(message.link("verify_email"))
            #expect(link.hasPrefix("/parse/apps/a/verify_email?token="))
            let verified = try await server.page(.get, link)
            #expect(verified.status == 200 && verified.html.contains("Email verified"))
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == true)
            let session = try #require(
                try await client.get("/login", query: ["username": "dana", "password": "first-password"])["sessionToken"]?.stringValue)
            #expect(try await server.page(.get, link).status == 400)

            // A client cannot set it; a new email is unverified again and gets its own link.
            let forged = try await client.put("/users/\(id)", ["emailVerified": true], sessionToken: session)
            #expect(forged.status == 403 && forged["code"] == 119)
            #expect(try await client.put("/users/\(id)", ["email": "dana@new.example"], sessionToken: session).status == 200)
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == false)
            let second = try #require(try await smtp.waitForMessages(2).last)
            #expect(second.recipients == ["dana@new.example"])
            #expect(try await client.get("/login", query: ["username": "dana", "password": "first-password"])["code"] == 205)
            #expect(try await server.page(.get, try #require(second.link("verify_email"))).status == 200)
            #expect(try await client.get("/login", query: ["username": "dana", "password": "first-password"]).status == 200)
        }
        try await smtp.stop()
    }

    @Test(arguments: ServedStore.allCases) func aVerificationLinkSentToAnOldEmailNoLongerWorks(store: ServedStore) async throws {
        let smtp = try await SMTPStandIn()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EmailTestServer.with(email: try smtp.settings(in: folder), store: store) { server in
            let client = server.client()
            let session = try await server.signUp("erin", email: "erin@example.com")
            let id = try #require(try await client.get("/users/me", sessionToken: session)["objectId"]?.stringValue)
            // Verification is off: the email starts unverified, and a link is sent only when asked for.
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == false)
            #expect(try await client.post("/verificationEmailRequest", ["email": "erin@example.com"]).body == [:])
            let link = try #require(try await smtp.waitForMessages(1).first?.link("verify_email"))
            #expect(try await client.put("/users/\(id)", ["email": "erin@other.example"], sessionToken: session).status == 200)
            #expect(try await server.page(.get, link).status == 400)
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == false)
            // The master key may say an email is verified, even as it changes it.
            #expect(try await client.put("/users/\(id)", ["email": "erin@third.example", "emailVerified": true], master: true).status == 200)
            #expect(try await client.get("/users/\(id)", master: true)["emailVerified"] == true)
        }
        try await smtp.stop()
    }
}
