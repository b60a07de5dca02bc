import Cloudlet
import CloudletRuntime
import Foundation
import Logging
import NIOSSL

extension EmailSettings {
    /// The policy these settings make for app `appId`, its links made by `links` and its log
    /// adapter writing to `logger`: the SMTP password and trusted certificates are read here.
    /// Throws 142 naming the member when a file cannot be read.
    func policy(appId: String, links: EmailLinks, logger: Logger) throws -> EmailPolicy {
        var policy = EmailPolicy(sender: try sender(appId: appId, logger: logger))
        policy.verifyUserEmails = verifyUserEmails
        policy.preventLoginWithUnverifiedEmail = preventLoginWithUnverifiedEmail
        policy.verificationLinkLifetime = .seconds(verificationLinkSeconds)
        policy.resetLinkLifetime = .seconds(resetLinkSeconds)
        policy.appName = appName
        policy.links = links
        return policy
    }

    /// Throws 142 when a file these settings name cannot be read.
    func validate() throws {
        _ = try sender(appId: "", logger: Logger(label: "cloudlet"))
    }

    private func sender(appId: String, logger: Logger) throws -> any EmailSender {
        if let smtp {
            var credentials: (String, String)?
            if let username = smtp.username, let passwordFile = smtp.passwordFile {
                guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8),
                    let password = text.split(whereSeparator: \.isNewline).first, !password.isEmpty
                else { throw AppSettings.invalid("email.smtp.passwordFile: cannot read a password from \(passwordFile)") }
                credentials = (username, String(password))
            }
            let trust = try NIOSSLTrustRoots.setting(smtp.caFile, member: "email.smtp.caFile")
            do {
                return try SMTPEmailSender(smtp, from: from ?? "", credentials: credentials, trustRoots: trust)
            } catch {
                throw AppSettings.invalid("email.smtp: \(error)")
            }
        }
        if let webhookURL { return WebhookEmailSender(url: webhookURL, appId: appId, from: from) }
        var logger = logger
        logger[metadataKey: "app"] = .string(appId)
        return LogEmailSender(logger: logger)
    }
}
