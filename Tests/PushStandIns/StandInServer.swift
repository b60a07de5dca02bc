import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One request as a stand-in receives it.
public struct StandInRequest: Sendable {
    public var method: HTTPMethod
    /// The path with its query, as sent (`:path`).
    public var path: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The number of the TCP connection the request came on, from 1 in order of acceptance (its
    /// HTTP/2 streams share it).
    public var connection: Int
}

/// What a stand-in answers.
public struct StandInResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// An HTTPS server speaking HTTP/2 only (ALPN `h2`, as APNs and FCM do), on 127.0.0.1 and a free
/// port, with a certificate for `127.0.0.1` and `localhost` made at start. Each request is answered
/// on the connection's event loop by `handle`, after `responseDelay` (a provider's round trip);
/// connections and streams are counted.
public final class StandInServer: Sendable {
    /// The most bytes a request body may carry; a larger one is answered 413.
    public static let maximumBodyBytes = 64 * 1024

    /// The certificate clients must trust.
    public let certificate: NIOSSLCertificate
    /// `https://127.0.0.1:<port>`.
    public let url: String
    private let channel: any Channel
    private let counts: StandInCounts

    /// The roots a client trusts to reach this server.
    public var trustRoots: NIOSSLTrustRoots { .certificates([certificate]) }
    /// TCP connections accepted so far.
    public var connectionCount: Int { counts.connections.load(ordering: .relaxed) }
    /// HTTP/2 streams (requests) opened so far.
    public var streamCount: Int { counts.streams.load(ordering: .relaxed) }

    /// Starts a server announcing `maximumConcurrentStreams` per connection (Apple's is 1000) that
    /// writes each answer `responseDelay` after it has the whole request (`handle` runs at once).
    public init(
        maximumConcurrentStreams: Int = 1000, responseDelay: TimeAmount = .zero,
        handle: @escaping @Sendable (StandInRequest) -> StandInResponse
    ) async throws {
        let identity = try StandInCertificate()
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let counts = StandInCounts()
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
        ]
        var streams = NIOHTTP2Handler.StreamConfiguration()
        streams.targetWindowSize = 1 << 20
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [connection, streams] channel in
                let connectionNumber = counts.connections.add(1, ordering: .relaxed).newValue
                counts.open.withLock { $0.append(channel) }
                return channel.eventLoop.makeCompletedFuture(withResultOf: {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connection, streamConfiguration: streams
                    ) { stream in
                        counts.streams.add(1, ordering: .relaxed)
                        return stream.eventLoop.makeCompletedFuture(withResultOf: {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), StandInStreamHandler(connection: connectionNumber, responseDelay: responseDelay, handle: handle),
                            ])
                        })
                    }
                })
            }
            .bind(host: "127.0.0.1", port: 0).get()
        certificate = identity.certificate
        url = "https://127.0.0.1:\(channel.localAddress?.port ?? 0)"
        self.counts = counts
    }

    /// Sends `GOAWAY` (no error, every stream so far processed) on every connection, as a server
    /// does before it restarts: clients must open a new connection for their next request.
    public func goAway() async throws {
        for channel in counts.open.withLock({ $0 }) where channel.isActive {
            let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: nil))
            try await channel.writeAndFlush(frame)
        }
    }

    /// Stops accepting connections.
    public func stop() async throws {
        try await channel.close()
    }
}

private final class StandInCounts: Sendable {
    let connections = Atomic<Int>(0)
    let streams = Atomic<Int>(0)
    /// The connections accepted so far (closed ones too).
    let open = Mutex<[any Channel]>([])
}

/// Collects one stream's request and writes the handler's answer.
private final class StandInStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection: Int
    private let responseDelay: TimeAmount
    private let handle: @Sendable (StandInRequest) -> StandInResponse
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var isTooLarge = false

    init(connection: Int, responseDelay: TimeAmount, handle: @escaping @Sendable (StandInRequest) -> StandInResponse) {
        self.connection = connection
        self.responseDelay = responseDelay
        self.handle = handle
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(let buffer):
            isTooLarge = isTooLarge || body.count + buffer.readableBytes > StandInServer.maximumBodyBytes
            if !isTooLarge { body.append(contentsOf: buffer.readableBytesView) }
        case .end:
            guard let head else { return }
            let response =
                isTooLarge
                ? StandInResponse(status: 413)
                : handle(StandInRequest(method: head.method, path: head.uri, headers: head.headers, body: body, connection: connection))
            guard responseDelay > .zero else { return write(response, context: context) }
            context.eventLoop.assumeIsolated().scheduleTask(in: responseDelay) { self.write(response, context: context) }
        }
    }

    private func write(_ response: StandInResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .init(statusCode: response.status), headers: headers))), promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
