import CloudletRuntime
import NIOCore

/// The commands and replies of one SMTP connection, in order: each command is written, then its
/// reply read (bounded by ``SMTPReplyParser``) and checked.
struct SMTPConversation {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var parser = SMTPReplyParser()
    private var ready: [SMTPReply] = []

    init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// The next reply, which must have one of `codes`; otherwise the reply's failure of `step`.
    @discardableResult
    mutating func expect(_ codes: Set<Int>, _ step: String) async throws -> SMTPReply {
        while ready.isEmpty {
            guard let bytes = try await inbound.next() else { throw EmailSendFailure("SMTP \(step): connection closed") }
            ready += try parser.add(bytes)
        }
        let reply = ready.removeFirst()
        guard codes.contains(reply.code) else { throw reply.failure(step) }
        return reply
    }

    /// Writes `line` (with its CRLF), then reads its reply as ``expect(_:_:)`` does. `step` names
    /// the command in a failure, so that no credential is ever written to a log.
    @discardableResult
    mutating func command(_ line: String, _ codes: Set<Int>, _ step: String) async throws -> SMTPReply {
        try await write(line + "\r\n")
        return try await expect(codes, step)
    }

    /// Writes `text` as it is.
    func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Whether the server sent anything not yet read: after `STARTTLS` nothing may have come before
    /// the handshake (bytes injected into the plain connection would otherwise pass for replies).
    var hasUnreadBytes: Bool { !ready.isEmpty || parser.hasPending }
}

/// The extensions an `EHLO` reply announces, by keyword, with their parameters.
struct SMTPExtensions {
    private let keywords: [String: [String]]

    init(_ reply: SMTPReply) {
        var keywords: [String: [String]] = [:]
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ").map { $0.uppercased() }
            if let keyword = words.first { keywords[keyword] = Array(words.dropFirst()) }
        }
        self.keywords = keywords
    }

    func has(_ keyword: String) -> Bool { keywords[keyword] != nil }

    /// The `AUTH` mechanisms offered.
    var authMechanisms: Set<String> { Set(keywords["AUTH"] ?? []) }
}
