import Cloudlet
import CloudletRuntime
import Foundation

/// How an app handles its users' emails, as the operator sets it in the registry's `email` member:
///
/// ```json
/// {"verifyUserEmails": true, "preventLoginWithUnverifiedEmail": false, "appName": "Shop",
///  "verificationLinkSeconds": 86400, "resetLinkSeconds": 3600, "from": "no-reply@shop.example",
///  "smtp": {"host": "smtp.example.com", "port": 587, "security": "starttls", "username": "shop",
///           "passwordFile": "/etc/cloudlet/smtp-password", "caFile": "/etc/cloudlet/smtp-ca.pem"}}
/// ```
///
/// The messages go to the SMTP server when `smtp` is set, else to the webhook when
/// `webhook: {"url"}` is set, else to the app's log. The SMTP password stays in the file named
/// here (read when the settings are applied); the registry holds only its path.
public struct EmailSettings: Sendable, Hashable {
    /// An SMTP server to submit the messages to.
    public struct SMTP: Sendable, Hashable {
        /// How the connection is protected.
        public enum Security: String, Sendable, Hashable {
            /// Plain TCP, then `STARTTLS` (required: a server that does not offer it is refused).
            case starttls
            /// TLS from the first byte (port 465).
            case tls
            /// No TLS: only for a relay on the same host or network.
            case none
        }

        public var host: String
        public var port: Int
        public var security: Security
        /// The user of `AUTH PLAIN` or `AUTH LOGIN`; nil to send without authenticating.
        public var username: String?
        /// The file holding the password (its first line), by absolute path.
        public var passwordFile: String?
        /// A PEM file of the certificates trusted for the server instead of the system's.
        public var caFile: String?

        public init(
            host: String, port: Int = 587, security: Security = .starttls, username: String? = nil, passwordFile: String? = nil,
            caFile: String? = nil
        ) {
            self.host = host
            self.port = port
            self.security = security
            self.username = username
            self.passwordFile = passwordFile
            self.caFile = caFile
        }
    }

    /// Whether a sign-up or a new email is sent a verification link.
    public var verifyUserEmails = false
    /// Whether a user whose email is not verified is refused at login (205).
    public var preventLoginWithUnverifiedEmail = false
    /// The app's name in the messages and pages; nil for its id.
    public var appName: String?
    /// How long a verification link lasts, in seconds.
    public var verificationLinkSeconds = 24 * 3600
    /// How long a password-reset link lasts, in seconds.
    public var resetLinkSeconds = 3600
    /// The sender's address (`MAIL FROM` and `From:`); required with `smtp`.
    public var from: String?
    public var smtp: SMTP?
    /// The URL the webhook adapter POSTs each message to, as JSON.
    public var webhookURL: String?

    /// Links and messages to the log, no verification required.
    public init() {}

    /// The longest a link may last: 30 days.
    static let linkSeconds = 60...(30 * 86_400)
    private static let members: Set<String> = [
        "verifyUserEmails", "preventLoginWithUnverifiedEmail", "appName", "verificationLinkSeconds", "resetLinkSeconds", "from",
        "smtp", "webhook",
    ]

    /// The settings in `json`, checked for shape (the password file is read by ``policy(appId:links:logger:)``).
    /// Throws 142 naming the member.
    public init(json: ParseValue) throws {
        guard let members = json.objectValue else { throw AppSettings.invalid("email must be an object") }
        try PushSettings.refuseUnknown(members, allowed: Self.members, in: "email")
        self.init()
        verifyUserEmails = try Self.flag(members, "verifyUserEmails") ?? false
        preventLoginWithUnverifiedEmail = try Self.flag(members, "preventLoginWithUnverifiedEmail") ?? false
        appName = try PushSettings.string(members, "appName", in: "email", required: false)
        verificationLinkSeconds = try Self.seconds(members, "verificationLinkSeconds") ?? verificationLinkSeconds
        resetLinkSeconds = try Self.seconds(members, "resetLinkSeconds") ?? resetLinkSeconds
        from = try PushSettings.string(members, "from", in: "email", required: false)
        if let from, !EmailAddress.isValid(from) { throw AppSettings.invalid("email.from must be an email address") }
        if let smtp = members["smtp"], !smtp.isNull {
            let object = try PushSettings.object(smtp, "email.smtp", allowed: ["host", "port", "security", "username", "passwordFile", "caFile"])
            let host = try PushSettings.string(object, "host", in: "email.smtp")!
            guard !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { throw AppSettings.invalid("email.smtp.host must be a host name") }
            let securityName = try PushSettings.string(object, "security", in: "email.smtp", required: false) ?? "starttls"
            guard let security = SMTP.Security(rawValue: securityName) else {
                throw AppSettings.invalid("email.smtp.security must be starttls, tls or none")
            }
            let port = object["port"].map { $0.intValue } ?? (security == .tls ? 465 : 587)
            guard let port, (1...65_535).contains(port) else { throw AppSettings.invalid("email.smtp.port must be an integer from 1 to 65535") }
            self.smtp = SMTP(
                host: host, port: port, security: security, username: try PushSettings.string(object, "username", in: "email.smtp", required: false),
                passwordFile: try PushSettings.string(object, "passwordFile", in: "email.smtp", required: false),
                caFile: try PushSettings.string(object, "caFile", in: "email.smtp", required: false))
            guard from != nil else { throw AppSettings.invalid("email.from is required with email.smtp") }
            guard (self.smtp?.username == nil) == (self.smtp?.passwordFile == nil) else {
                throw AppSettings.invalid("email.smtp.username and email.smtp.passwordFile go together")
            }
        }
        if let webhook = members["webhook"], !webhook.isNull {
            webhookURL = try PushSettings.url(try PushSettings.object(webhook, "email.webhook", allowed: ["url"]), "url", in: "email.webhook")
        }
    }

    /// The settings as JSON, in the members ``init(json:)`` reads.
    public var json: ParseValue {
        var members: [String: ParseValue] = [
            "verifyUserEmails": .bool(verifyUserEmails), "preventLoginWithUnverifiedEmail": .bool(preventLoginWithUnverifiedEmail),
            "verificationLinkSeconds": .number(Double(verificationLinkSeconds)), "resetLinkSeconds": .number(Double(resetLinkSeconds)),
        ]
        members["appName"] = appName.map(ParseValue.string)
        members["from"] = from.map(ParseValue.string)
        if let smtp {
            var object: [String: ParseValue] = [
                "host": .string(smtp.host), "port": .number(Double(smtp.port)), "security": .string(smtp.security.rawValue),
            ]
            object["username"] = smtp.username.map(ParseValue.string)
            object["passwordFile"] = smtp.passwordFile.map(ParseValue.string)
            object["caFile"] = smtp.caFile.map(ParseValue.string)
            members["smtp"] = .object(object)
        }
        if let webhookURL { members["webhook"] = ["url": .string(webhookURL)] }
        return .object(members)
    }

    private static func flag(_ members: [String: ParseValue], _ name: String) throws -> Bool? {
        guard let value = members[name] else { return nil }
        guard let flag = value.boolValue else { throw AppSettings.invalid("email.\(name) must be true or false") }
        return flag
    }

    private static func seconds(_ members: [String: ParseValue], _ name: String) throws -> Int? {
        guard let value = members[name] else { return nil }
        guard let seconds = value.intValue, linkSeconds.contains(seconds) else {
            throw AppSettings.invalid("email.\(name) must be an integer from \(linkSeconds.lowerBound) to \(linkSeconds.upperBound)")
        }
        return seconds
    }
}
