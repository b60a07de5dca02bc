import Foundation

/// The text of an app's emails, as Parse Server's default messages word it.
struct EmailTemplates {
    let appName: String
    /// Where the links point; without it (a runtime not served), a path below the mount path.
    let links: EmailLinks?
    let appId: String

    /// The message of `purpose` carrying `token`, to `email`.
    func message(_ purpose: EmailTokenPurpose, token: String, to email: String, username: String?) -> EmailMessage {
        let name = Self.oneLine(appName)
        switch purpose {
        case .verifyEmail:
            return EmailMessage(
                to: email, subject: "Please verify your e-mail for \(name)",
                text: "Hi,\n\nYou are being asked to confirm the e-mail address \(email) with \(name)\n\n"
                    + "Click here to confirm it:\n\(link("verify_email", token))")
        case .resetPassword:
            let named = username.map { " (your username is '\($0)')" } ?? ""
            return EmailMessage(
                to: email, subject: "Password Reset for \(name)",
                text: "Hi,\n\nYou requested to reset your password for \(name)\(named).\n\n"
                    + "Click here to reset it:\n\(link("request_password_reset", token))")
        }
    }

    private func link(_ page: String, _ token: String) -> String {
        links?.url(page, token: token) ?? "/apps/\(appId)/\(page)?token=\(token)"
    }

    /// `text` with every control character (a line break above all) made a space: for a subject.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
