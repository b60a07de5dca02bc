import CloudletRuntime
import NIOCore

/// One reply of an SMTP server: its code and its lines' text (a multiline reply has several).
struct SMTPReply: Sendable, Equatable {
    /// The three-digit code: 2xx done, 3xx go on, 4xx try later, 5xx refused.
    var code: Int
    var lines: [String]

    /// The longest reply line read (RFC 5321 allows 512 bytes; servers send longer EHLO lines).
    static let maximumLineBytes = 2048
    /// The most lines of one reply (the EHLO reply lists the server's extensions).
    static let maximumLines = 64

    /// Whether the reply is a success (2xx).
    var isPositive: Bool { (200...299).contains(code) }

    /// The failure this reply makes of `step`: permanent for a 5xx reply.
    func failure(_ step: String) -> EmailSendFailure {
        EmailSendFailure("SMTP \(step): \(code) \(lines.first ?? "")", isPermanent: (500...599).contains(code))
    }
}

/// Parses the replies out of the bytes an SMTP server sends, refusing a line or reply past its bound.
struct SMTPReplyParser {
    private var pending: [UInt8] = []
    private var lines: [String] = []

    /// Whether part of a line has come and not yet its end.
    var hasPending: Bool { !pending.isEmpty || !lines.isEmpty }

    /// Adds `bytes`; answers the replies they complete.
    mutating func add(_ bytes: ByteBuffer) throws -> [SMTPReply] {
        pending += bytes.readableBytesView
        var replies: [SMTPReply] = []
        while let newline = pending.firstIndex(of: 0x0A) {
            var line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if line.last == 0x0D { line.removeLast() }
            if let reply = try take(line) { replies.append(reply) }
        }
        guard pending.count <= SMTPReply.maximumLineBytes else { throw EmailSendFailure("SMTP reply line too long") }
        return replies
    }

    /// Takes one line: answers the reply it ends, if it is its last line (`250 text`, not `250-text`).
    private mutating func take(_ line: [UInt8]) throws -> SMTPReply? {
        guard line.count >= 3, line.count <= SMTPReply.maximumLineBytes, line[0..<3].allSatisfy({ (0x30...0x39).contains($0) }),
            line.count == 3 || line[3] == 0x20 || line[3] == 0x2D, let code = Int(String(decoding: line[0..<3], as: UTF8.self))
        else { throw EmailSendFailure("SMTP reply malformed") }
        lines.append(line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : "")
        guard lines.count <= SMTPReply.maximumLines else { throw EmailSendFailure("SMTP reply too long") }
        guard line.count == 3 || line[3] == 0x20 else { return nil }
        defer { lines = [] }
        return SMTPReply(code: code, lines: lines)
    }
}
