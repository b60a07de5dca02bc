import CloudletRuntime
import Foundation

/// An email as the `DATA` command sends it: RFC 5322 headers and a plain-text body, lines ending
/// in CRLF, a line starting with a dot doubled ("dot-stuffing"), then the lone dot that ends it.
/// Header values hold no line break: addresses are checked by ``EmailAddress``, and control
/// characters in the subject become spaces.
enum SMTPMessageData {
    /// The longest line of a body sent as it is (RFC 5321's 1000 with the CRLF); a body with a
    /// longer line, or any byte that is not ASCII, is sent in base64.
    static let maximumLineBytes = 998

    /// The data of `message` from `from`, sent at `date` with the id `messageId`.
    static func make(_ message: EmailMessage, from: String, date: Date, messageId: String) -> String {
        let lines = message.text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        let isPlain = message.text.utf8.allSatisfy { $0 < 0x80 } && lines.allSatisfy { $0.utf8.count <= maximumLineBytes }
        var headers = [
            "From: <\(from)>", "To: <\(message.to)>", "Subject: \(subject(message.subject))", "Date: \(dateText(date))",
            "Message-ID: <\(messageId)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
        ]
        let body: [Substring]
        if isPlain {
            headers.append("Content-Transfer-Encoding: 7bit")
            body = lines
        } else {
            headers.append("Content-Transfer-Encoding: base64")
            body = base64Lines(Data(lines.joined(separator: "\r\n").utf8))
        }
        let stuffed = body.map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        return (headers + [""] + stuffed).joined(separator: "\r\n") + "\r\n.\r\n"
    }

    /// The subject on one line, encoded (RFC 2047) unless it is printable ASCII.
    static func subject(_ text: String) -> String {
        let line = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
        guard !line.unicodeScalars.allSatisfy({ $0.value < 0x80 }) else { return line }
        return "=?UTF-8?B?\(Data(line.utf8).base64EncodedString())?="
    }

    private static func base64Lines(_ data: Data) -> [Substring] {
        let encoded = data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        return encoded.split(separator: "\r\n", omittingEmptySubsequences: false)
    }

    private static func dateText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
