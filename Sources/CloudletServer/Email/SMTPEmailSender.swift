import CloudletRuntime
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Submits each email to the operator's SMTP server over a connection of its own: TLS from the
/// start or after `STARTTLS` (a server that does not offer it is refused, never written to in
/// the clear), `AUTH PLAIN` or `AUTH LOGIN` when it has credentials, then `MAIL FROM`, `RCPT TO`,
/// `DATA` and `QUIT`. Connecting is bounded by ``connectTimeout`` and the whole exchange by
/// ``exchangeTimeout`` (the connection is closed then); replies are bounded by ``SMTPReplyParser``.
/// A 5xx reply is a permanent failure, anything else worth another try.
public struct SMTPEmailSender: EmailSender {
    /// The longest wait for the connection.
    static let connectTimeout = TimeAmount.seconds(10)
    /// The longest one message's exchange may take, from connecting to `QUIT`.
    static let exchangeTimeout = TimeAmount.seconds(60)

    let settings: EmailSettings.SMTP
    /// The address in `MAIL FROM` and `From:`.
    let from: String
    /// The user and password of `AUTH`, if the server needs them.
    let credentials: (username: String, password: String)?
    /// The TLS of the connection; nil with security `none`.
    let tls: NIOSSLContext?

    /// A sender to the server `settings` names, as `from`, trusting `trustRoots` for its certificate.
    public init(
        _ settings: EmailSettings.SMTP, from: String, credentials: (username: String, password: String)?,
        trustRoots: NIOSSLTrustRoots = .default
    ) throws {
        self.settings = settings
        self.from = from
        self.credentials = credentials
        if settings.security == .none {
            tls = nil
        } else {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = trustRoots
            tls = try NIOSSLContext(configuration: configuration)
        }
    }

    public func send(_ message: EmailMessage) async throws {
        guard EmailAddress.isValid(message.to), EmailAddress.isValid(from) else {
            throw EmailSendFailure("not an email address", isPermanent: true)
        }
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(Self.connectTimeout)
                .connect(host: settings.host, port: settings.port) { [tls, settings] channel in
                    channel.eventLoop.makeCompletedFuture {
                        if settings.security == .tls, let tls { try Self.addTLS(tls, host: settings.host, to: channel) }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw EmailSendFailure("SMTP server \(settings.host):\(settings.port) unreachable: \(error)")
        }
        let deadline = channel.channel.eventLoop.scheduleTask(in: Self.exchangeTimeout) { [channel] in channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        do {
            try await channel.executeThenClose { inbound, outbound in
                var conversation = SMTPConversation(inbound, outbound)
                try await exchange(message, &conversation, channel: channel.channel)
            }
        } catch let failure as EmailSendFailure {
            throw failure
        } catch {
            throw EmailSendFailure("SMTP exchange with \(settings.host) failed: \(error)")
        }
    }

    /// Greeting, `EHLO`, `STARTTLS`, `AUTH`, the envelope and the data, and `QUIT`.
    private func exchange(_ message: EmailMessage, _ conversation: inout SMTPConversation, channel: any Channel) async throws {
        try await conversation.expect([220], "greeting")
        var extensions = SMTPExtensions(try await conversation.command("EHLO \(Self.clientName)", [250], "EHLO"))
        if settings.security == .starttls, let tls {
            guard extensions.has("STARTTLS") else { throw EmailSendFailure("SMTP server offers no STARTTLS", isPermanent: true) }
            try await conversation.command("STARTTLS", [220], "STARTTLS")
            guard !conversation.hasUnreadBytes else { throw EmailSendFailure("SMTP server sent data before the TLS handshake") }
            try await channel.eventLoop.submit { [settings] in try Self.addTLS(tls, host: settings.host, to: channel) }.get()
            extensions = SMTPExtensions(try await conversation.command("EHLO \(Self.clientName)", [250], "EHLO"))
        }
        if let credentials { try await authenticate(credentials, offered: extensions.authMechanisms, &conversation) }
        try await conversation.command("MAIL FROM:<\(from)>", [250], "MAIL FROM")
        try await conversation.command("RCPT TO:<\(message.to)>", [250, 251], "RCPT TO")
        try await conversation.command("DATA", [354], "DATA")
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        try await conversation.write(SMTPMessageData.make(message, from: from, date: Date(), messageId: "\(UUID().uuidString)@\(domain)"))
        try await conversation.expect([250], "message")
        _ = try? await conversation.command("QUIT", [221], "QUIT")
    }

    /// `AUTH PLAIN` when offered, else `AUTH LOGIN`; neither offered is a permanent failure.
    private func authenticate(
        _ credentials: (username: String, password: String), offered: Set<String>, _ conversation: inout SMTPConversation
    ) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if offered.contains("PLAIN") {
            try await conversation.command("AUTH PLAIN " + base64("\0\(credentials.username)\0\(credentials.password)"), [235], "AUTH PLAIN")
        } else if offered.contains("LOGIN") {
            try await conversation.command("AUTH LOGIN", [334], "AUTH LOGIN")
            try await conversation.command(base64(credentials.username), [334], "AUTH LOGIN username")
            try await conversation.command(base64(credentials.password), [235], "AUTH LOGIN password")
        } else {
            throw EmailSendFailure("SMTP server offers neither AUTH PLAIN nor AUTH LOGIN", isPermanent: true)
        }
    }

    /// The name the client gives in `EHLO`.
    static let clientName = "cloudlet.localhost"

    /// Puts TLS in front of `channel`'s pipeline, checking the certificate against `host` (by its
    /// IP address when `host` is one).
    private static func addTLS(_ tls: NIOSSLContext, host: String, to channel: any Channel) throws {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let handler = try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host)
        try channel.pipeline.syncOperations.addHandler(handler, position: .first)
    }
}
