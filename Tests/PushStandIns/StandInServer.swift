import Foundation
import NIOCore
import NIOHTTP1
import NIOHPACK
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
    /// TCP connections open now.
    public var openConnectionCount: Int { counts.open.withLock { $0.filter(\.isActive).count } }

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
        let settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
            HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
        ]
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let connectionNumber = counts.connections.add(1, ordering: .relaxed).newValue
                counts.open.withLock { $0.append(channel) }
                return channel.eventLoop.makeCompletedFuture(withResultOf: {
                    try channel.pipeline.syncOperations.addHandlers([
                        NIOSSLServerHandler(context: context), NIOHTTP2Handler(mode: .server, initialSettings: settings),
                        StandInConnectionHandler(
                            connection: connectionNumber, counts: counts, responseDelay: responseDelay, handle: handle),
                    ])
                })
            }
            .bind(host: "127.0.0.1", port: 0).get()
        certificate = identity.certificate
        url = "https://127.0.0.1:\(channel.localAddress?.port ?? 0)"
        self.counts = counts
    }

    /// Sends `GOAWAY` (no error) on every connection, as a server does before it restarts, naming
    /// the last stream it has seen: those streams are still answered, a stream the client opened
    /// after it was not processed, and clients must open a new connection for their next request.
    public func goAway() async throws {
        for channel in counts.open.withLock({ $0 }) where channel.isActive {
            try await channel.eventLoop.submit {
                channel.pipeline.syncOperations.fireUserInboundEventTriggered(StandInGoAway())
            }.get()
        }
    }

    /// Stops accepting connections.
    public func stop() async throws {
        try await channel.close()
    }
}

/// Asks a connection's `StandInConnectionHandler` to send `GOAWAY`.
private struct StandInGoAway {}

private final class StandInCounts: Sendable {
    let connections = Atomic<Int>(0)
    let streams = Atomic<Int>(0)
    /// The connections accepted so far (closed ones too).
    let open = Mutex<[any Channel]>([])
}

/// The requests of one connection, as HTTP/2 frames: collects each stream's headers and body,
/// answers it through `handle` (`responseDelay` later), and flushes the answers of one read at
/// once, as a busy server does. The connection's receive window is credited as bodies arrive.
private final class StandInConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct PendingRequest {
        var headers: HPACKHeaders
        var body: [UInt8] = []
        var isTooLarge = false
    }

    private let connection: Int
    private let counts: StandInCounts
    private let responseDelay: TimeAmount
    private let handle: @Sendable (StandInRequest) -> StandInResponse
    private var requests: [HTTP2StreamID: PendingRequest] = [:]
    private var uncreditedBytes = 0
    private var hasUnflushedWrites = false
    private var lastStreamID = HTTP2StreamID.rootStream

    init(
        connection: Int, counts: StandInCounts, responseDelay: TimeAmount, handle: @escaping @Sendable (StandInRequest) -> StandInResponse
    ) {
        self.connection = connection
        self.counts = counts
        self.responseDelay = responseDelay
        self.handle = handle
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if requests[frame.streamID] == nil {
                lastStreamID = max(lastStreamID, frame.streamID)
                counts.streams.add(1, ordering: .relaxed)
                requests[frame.streamID] = PendingRequest(headers: headers.headers)
            }
            if headers.endStream { answer(frame.streamID, context: context) }
        case .data(let data):
            guard case .byteBuffer(let buffer) = data.data else { return }
            credit(buffer.readableBytes + (data.paddingBytes ?? 0), context: context)
            if var request = requests[frame.streamID] {
                request.isTooLarge = request.isTooLarge || request.body.count + buffer.readableBytes > StandInServer.maximumBodyBytes
                if !request.isTooLarge { request.body.append(contentsOf: buffer.readableBytesView) }
                requests[frame.streamID] = request
            }
            if data.endStream { answer(frame.streamID, context: context) }
        case .rstStream:
            requests[frame.streamID] = nil
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is StandInGoAway else { return context.fireUserInboundEventTriggered(event) }
        let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if hasUnflushedWrites {
            hasUnflushedWrites = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    private func answer(_ id: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let request = requests.removeValue(forKey: id) else { return }
        var headers = HTTPHeaders()
        for (name, value, _) in request.headers where !name.hasPrefix(":") { headers.add(name: name, value: value) }
        if let authority = request.headers.first(name: ":authority") { headers.add(name: "host", value: authority) }
        let response =
            request.isTooLarge
            ? StandInResponse(status: 413)
            : handle(
                StandInRequest(
                    method: HTTPMethod(rawValue: request.headers.first(name: ":method") ?? "GET"),
                    path: request.headers.first(name: ":path") ?? "/", headers: headers, body: request.body, connection: connection))
        guard responseDelay > .zero else {
            write(response, on: id, context: context)
            hasUnflushedWrites = true
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: responseDelay) {
            self.write(response, on: id, context: context)
            context.flush()
        }
    }

    private func write(_ response: StandInResponse, on id: HTTP2StreamID, context: ChannelHandlerContext) {
        var headers = HPACKHeaders([(":status", String(response.status))])
        // Answers carry per-request values (`apns-id`): kept out of the header tables, as the client's paths are.
        for (name, value) in response.headers { headers.add(name: name.lowercased(), value: value, indexing: .nonIndexable) }
        headers.add(name: "content-length", value: String(response.body.count), indexing: .nonIndexable)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers, endStream: response.body.isEmpty)))), promise: nil)
        if !response.body.isEmpty {
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(context.channel.allocator.buffer(bytes: response.body)), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(data))), promise: nil)
        }
    }

    /// Gives the client back the connection window its bodies used.
    private func credit(_ bytes: Int, context: ChannelHandlerContext) {
        uncreditedBytes += bytes
        guard uncreditedBytes >= 32 * 1024 else { return }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: uncreditedBytes))), promise: nil)
        uncreditedBytes = 0
        hasUnflushedWrites = true
    }
}
