import Cloudlet
import CloudletTesting
import Testing

@Suite struct HarnessEmailTests {
    @Test func aHookAuthorFollowsVerificationAndResetLinksInTheHarness() async throws {
        let harness = try HookHarness(registry: HookRegistry())
        harness.setEmailPolicy(verifyUserEmails: true, preventLoginWithUnverifiedEmail: true)
        let user = try await harness.signUp(username: "ivy", password: "first", ["email": "ivy@example.com"])
        #expect(user["emailVerified"] == false)
        await #expect(throws: ParseError(code: 205, message: "User email is not verified.")) {
            try await harness.logIn(username: "ivy", password: "first")
        }
        let verification = try #require(try await harness.emails(count: 1).first)
        #expect(verification.to == "ivy@example.com" && verification.subject == "Please verify your e-mail for test")
        #expect(try await harness.followVerificationLink(in: verification))
        #expect(try await !harness.followVerificationLink(in: verification))
        #expect(try await harness.get("_User", id: user.objectId!)?["emailVerified"] == true)
        _ = try await harness.logIn(username: "ivy", password: "first")

        try await harness.requestPasswordReset(email: "ivy@example.com")
        try await harness.requestPasswordReset(email: "nobody@example.com")
        let reset = try #require(try await harness.emails(count: 2).last)
        #expect(reset.subject == "Password Reset for test")
        try await harness.resetPassword(through: reset, to: "second")
        await #expect(throws: ParseError(code: 101, message: "Invalid username/password.")) {
            try await harness.logIn(username: "ivy", password: "first")
        }
        _ = try await harness.logIn(username: "ivy", password: "second")
        #expect(harness.sentEmails.all.count == 2)
    }
}
