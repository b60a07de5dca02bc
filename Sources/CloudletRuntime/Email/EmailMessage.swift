import Cloudlet
import Foundation
import Logging

/// One email the server sends for an app: a verification or password-reset link, in plain text.
public struct EmailMessage: Sendable, Hashable {
    /// The recipient's address, checked by ``EmailAddress`` (no line break can reach a header).
    public var to: String
    public var subject: String
    /// The body, plain UTF-8 text.
    public var text: String

    public init(to: String, subject: String, text: String) {
        self.to = to
        self.subject = subject
        self.text = text
    }

    /// The message as the work queue keeps it until sent, and as the webhook adapter posts it.
    public var json: ParseValue {
        ["to": .string(to), "subject": .string(subject), "text": .string(text)]
    }

    /// The message `json` holds; nil when a member is missing.
    public init?(json: ParseValue) {
        guard let to = json["to"]?.stringValue, let subject = json["subject"]?.stringValue, let text = json["text"]?.stringValue else {
            return nil
        }
        self.init(to: to, subject: subject, text: text)
    }
}

/// Where an app's emails go: the log (the default), an SMTP server or a webhook.
public protocol EmailSender: Sendable {
    /// Sends `message`, or throws: an ``EmailSendFailure`` says whether another try may succeed.
    func send(_ message: EmailMessage) async throws
}

/// Why a send failed, and whether trying again later may help (a timeout, a 4xx SMTP reply) or not
/// (a 5xx reply: the server refused the message or the recipient).
public struct EmailSendFailure: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var isPermanent: Bool

    public init(_ reason: String, isPermanent: Bool = false) {
        self.reason = reason
        self.isPermanent = isPermanent
    }

    public var description: String { reason }
}

/// Writes each email, its link included, to the app's log: the default, for development and for
/// operators who send no mail.
public struct LogEmailSender: EmailSender {
    let logger: Logger

    /// A sender writing to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func send(_ message: EmailMessage) async throws {
        logger.notice("email", metadata: ["to": "\(message.to)", "subject": "\(message.subject)", "text": "\(message.text)"])
    }
}

/// Checks an email address before it is looked up or written into a message: text of at most
/// ``maximumLength`` bytes, one `@` with something on each side, and no space or control character
/// (so a CR or LF can never end an SMTP command or a header early).
public enum EmailAddress {
    /// The longest address taken (RFC 5321's limit on a path).
    public static let maximumLength = 254

    /// `value` as an address; throws 125 (Parse's invalid email) otherwise.
    public static func checked(_ value: ParseValue) throws -> String {
        guard let text = value.stringValue, isValid(text) else {
            throw ParseError(code: 125, message: "Email address format is invalid.")
        }
        return text
    }

    /// Whether `text` is an address a message may be sent to.
    public static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumLength else { return false }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "<" || $0 == ">" }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }
}
