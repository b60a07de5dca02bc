import Cloudlet
import CloudletRuntime
import Foundation

extension HookHarness {
    /// Sets how the app handles its users' emails, as the `email` setting's members of the same
    /// names do on a server (both false by default).
    public func setEmailPolicy(verifyUserEmails: Bool, preventLoginWithUnverifiedEmail: Bool) {
        var policy = runtime.context.emailPolicy
        policy.verifyUserEmails = verifyUserEmails
        policy.preventLoginWithUnverifiedEmail = preventLoginWithUnverifiedEmail
        runtime.context.emailPolicy = policy
    }

    /// Asks for a password-reset link for `email`, as `POST /requestPasswordReset` does.
    public func requestPasswordReset(email: String) async throws {
        try await runtime.emails.requestPasswordReset(email: .string(email), address: nil)
    }

    /// Asks for a verification link for `email`, as `POST /verificationEmailRequest` does.
    public func requestVerificationEmail(email: String) async throws {
        try await runtime.emails.requestVerification(email: .string(email), address: nil)
    }

    /// Waits (in real time, up to `timeout`) until `count` emails have been sent; answers every
    /// email sent so far, oldest first. They are sent from the app's work queue, as on a server.
    public func emails(count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [EmailMessage] {
        let giveUp = ContinuousClock.now + timeout
        while sentEmails.all.count < count {
            guard ContinuousClock.now < giveUp else { throw ParseError.failed("\(count) emails were not sent within \(timeout)") }
            try await Task.sleep(for: .milliseconds(2))
        }
        return sentEmails.all
    }

    /// Follows the verification link of `message` as a browser does: true if it marked the email
    /// verified, false for a link that does not work.
    public func followVerificationLink(in message: EmailMessage) async throws -> Bool {
        try await runtime.emails.verifyEmail(token: Self.token(in: message), requestId: "harness")
    }

    /// Chooses `newPassword` through the reset link of `message`, as its page's form does.
    public func resetPassword(through message: EmailMessage, to newPassword: String) async throws {
        try await runtime.emails.resetPassword(token: Self.token(in: message), newPassword: newPassword, requestId: "harness")
    }

    /// The token of the link in `message`, or an empty one.
    private static func token(in message: EmailMessage) -> String {
        guard let range = message.text.range(of: "token=[0-9a-f]+", options: .regularExpression) else { return "" }
        return String(message.text[range].dropFirst("token=".count))
    }
}
