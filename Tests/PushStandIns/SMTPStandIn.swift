import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One message an ``SMTPStandIn`` accepted.
public struct SMTPStandInMessage: Sendable {
    /// The `MAIL FROM` address.
    public var from: String
    /// The `RCPT TO` addresses.
    public var recipients: [String]
    /// The data as sent, dot-stuffing undone, lines joined by CRLF.
    public var data: String
    /// The user that authenticated, if any.
    public var user: String?
    /// Whether the message came over TLS.
    public var overTLS: Bool

    /// The header `name`'s value.
    public func header(_ name: String) -> String? {
        let headers = data.components(separatedBy: "\r\n\r\n").first ?? ""
        return headers.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }
            .map { String($0.dropFirst(name.count + 2)) }
    }

    /// The body, after the blank line that ends the headers.
    public var body: String {
        data.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }
}

/// An SMTP server on 127.0.0.1 and a free port that speaks what a submission client needs —
/// `EHLO`, `STARTTLS` (with a certificate made at start), `AUTH PLAIN` and `AUTH LOGIN`, `MAIL FROM`,
/// `RCPT TO`, `DATA` with dot-stuffing, `RSET`, `NOOP`, `QUIT` — and records every message and
/// command line it receives.
public final class SMTPStandIn: Sendable {
    /// How the stand-in behaves.
    public struct Behaviour: Sendable {
        /// Offer `STARTTLS`.
        public var offersSTARTTLS = true
        /// The user and password `AUTH` takes; nil for a server that needs none.
        public var credentials: (user: String, password: String)? = ("mailer", "s3cret")
        /// The `AUTH` mechanisms offered (only after TLS, as real servers do).
        public var mechanisms = ["PLAIN", "LOGIN"]
        /// How many `MAIL FROM` commands are answered 451 (try later) before one is taken.
        public var temporaryFailures = 0
        /// The reply to every `RCPT TO`, when set (`550 no such user`).
        public var recipientReply: String?

        public init() {}
    }

    /// The certificate clients must trust.
    public let certificate: NIOSSLCertificate
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let state: Locked<State>

    fileprivate struct State {
        var messages: [SMTPStandInMessage] = []
        var lines: [String] = []
        var temporaryFailuresLeft: Int
    }

    /// Starts a stand-in behaving as `behaviour` says.
    public init(_ behaviour: Behaviour = Behaviour()) async throws {
        let identity = try StandInCertificate()
        let tls = try NIOSSLContext(
            configuration: TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey)))
        let state = Locked(State(temporaryFailuresLeft: behaviour.temporaryFailures))
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        certificate = identity.certificate
        port = server.channel.localAddress?.port ?? 0
        channel = server.channel
        self.state = state
        Task {
            try? await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask {
                            try? await SMTPStandInSession(connection: connection, tls: tls, behaviour: behaviour, state: state).run()
                        }
                    }
                }
            }
        }
    }

    /// The certificate as PEM, for a client's trusted-certificates file.
    public var certificatePEM: String {
        let der = (try? certificate.toDERBytes()) ?? []
        return "-----BEGIN CERTIFICATE-----\n\(Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]))\n-----END CERTIFICATE-----\n"
    }

    /// The messages accepted so far.
    public var messages: [SMTPStandInMessage] { state.withLock { $0.messages } }
    /// Every command line received so far (not the data), in order.
    public var commandLines: [String] { state.withLock { $0.lines } }

    /// Waits (at most `timeout`) until `count` messages have been accepted; answers them.
    public func waitForMessages(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [SMTPStandInMessage] {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let messages = self.messages
            if messages.count >= count { return messages }
            try await Task.sleep(for: .milliseconds(20))
        }
        return messages
    }

    /// Stops accepting connections.
    public func stop() async throws {
        try await channel.close()
    }

    fileprivate struct Recorder: Sendable {
        let state: Locked<State>
        func line(_ line: String) { state.withLock { $0.lines.append(line) } }
        func message(_ message: SMTPStandInMessage) { state.withLock { $0.messages.append(message) } }
        func takeTemporaryFailure() -> Bool {
            state.withLock { state in
                guard state.temporaryFailuresLeft > 0 else { return false }
                state.temporaryFailuresLeft -= 1
                return true
            }
        }
    }

    fileprivate struct SMTPStandInSession {
        let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        let tls: NIOSSLContext
        let behaviour: Behaviour
        let state: Locked<State>

        func run() async throws {
            let recorder = Recorder(state: state)
            try await connection.executeThenClose { inbound, outbound in
                var lines = StandInLines(inbound.makeAsyncIterator())
                func reply(_ text: String) async throws { try await outbound.write(ByteBuffer(string: text + "\r\n")) }
                var overTLS = false
                var user: String?
                var from: String?
                var recipients: [String] = []
                try await reply("220 stand-in ESMTP")
                while let line = try await lines.next() {
                    recorder.line(line)
                    let verb = line.prefix { $0 != " " && $0 != ":" }.uppercased()
                    switch verb {
                    case "EHLO", "HELO":
                        var offers = ["stand-in"]
                        if behaviour.offersSTARTTLS, !overTLS { offers.append("STARTTLS") }
                        if behaviour.credentials != nil, overTLS || !behaviour.offersSTARTTLS {
                            offers.append("AUTH " + behaviour.mechanisms.joined(separator: " "))
                        }
                        offers.append("8BITMIME")
                        try await reply(offers.enumerated().map { ($0.offset == offers.count - 1 ? "250 " : "250-") + $0.element }.joined(separator: "\r\n"))
                    case "STARTTLS" where behaviour.offersSTARTTLS && !overTLS:
                        // The reply leaves in the clear before TLS is put in front of the connection, in one task of its loop.
                        try await connection.channel.eventLoop.submit { [tls, channel = connection.channel] in
                            channel.writeAndFlush(ByteBuffer(string: "220 go ahead\r\n"), promise: nil)
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
                        }.get()
                        overTLS = true
                    case "AUTH":
                        let words = line.split(separator: " ").map(String.init)
                        var given: (String, String)?
                        if words.count >= 3, words[1].uppercased() == "PLAIN" {
                            let parts = Self.decoded(words[2]).split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
                            if parts.count == 3 { given = (parts[1], parts[2]) }
                        } else if words.count == 2, words[1].uppercased() == "LOGIN" {
                            try await reply("334 VXNlcm5hbWU6")
                            let name = Self.decoded(try await lines.next() ?? "")
                            try await reply("334 UGFzc3dvcmQ6")
                            given = (name, Self.decoded(try await lines.next() ?? ""))
                        }
                        if let given, let expected = behaviour.credentials, given.0 == expected.user, given.1 == expected.password {
                            user = given.0
                            try await reply("235 authenticated")
                        } else {
                            try await reply("535 authentication failed")
                        }
                    case "MAIL":
                        if behaviour.credentials != nil, user == nil {
                            try await reply("530 authentication required")
                        } else if recorder.takeTemporaryFailure() {
                            try await reply("451 try again later")
                        } else {
                            from = Self.path(line)
                            recipients = []
                            try await reply("250 ok")
                        }
                    case "RCPT":
                        if let answer = behaviour.recipientReply {
                            try await reply(answer)
                        } else if from == nil {
                            try await reply("503 need MAIL first")
                        } else {
                            recipients.append(Self.path(line))
                            try await reply("250 ok")
                        }
                    case "DATA" where from != nil && !recipients.isEmpty:
                        try await reply("354 end with <CRLF>.<CRLF>")
                        var data: [String] = []
                        while let dataLine = try await lines.next(), dataLine != "." {
                            data.append(dataLine.hasPrefix(".") ? String(dataLine.dropFirst()) : dataLine)
                        }
                        recorder.message(
                            SMTPStandInMessage(from: from!, recipients: recipients, data: data.joined(separator: "\r\n"), user: user, overTLS: overTLS))
                        from = nil
                        try await reply("250 queued")
                    case "RSET", "NOOP":
                        try await reply("250 ok")
                    case "QUIT":
                        try await reply("221 bye")
                        return
                    default:
                        try await reply("502 not understood")
                    }
                }
            }
        }

        private static func decoded(_ base64: String) -> String {
            Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }

        /// The address between `<` and `>` of `MAIL FROM:<…>` or `RCPT TO:<…>`.
        private static func path(_ line: String) -> String {
            guard let open = line.firstIndex(of: "<"), let close = line.lastIndex(of: ">"), open < close else { return "" }
            return String(line[line.index(after: open)..<close])
        }
    }
}

/// The lines of a connection, split at CRLF (a bare LF too), each at most 64 KiB.
private struct StandInLines {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private var pending: [UInt8] = []

    init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
        self.inbound = inbound
    }

    mutating func next() async throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard pending.count < 65_536, let bytes = try await inbound.next() else { return nil }
            pending += bytes.readableBytesView
        }
    }
}
