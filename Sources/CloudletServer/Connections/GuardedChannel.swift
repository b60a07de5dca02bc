import Cloudlet
import CloudletRuntime
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The server's HTTP/1 channel, whose requests to a LiveQuery path may upgrade to WebSocket,
/// behind the server's connection bounds. Each accepted connection is counted, in all and by
/// client address, until it closes, whatever it becomes; one over a bound is counted in
/// `cloudlet_connections_refused_total{reason}`, answered 503 with a Parse body as soon as it is
/// active, and closed: nothing it sends is read.
///
/// The first request is held to the server's deadlines by a ``FirstRequestDeadlineHandler`` until
/// its head is read; the later ones of an HTTP connection by the handlers the HTTP channel adds
/// (``ConnectionDeadlineHandler`` and the others). An upgraded connection leaves the HTTP deadlines
/// behind: it has its own (``UnreadDeadlineHandler``, pings, and the LiveQuery `connect` deadline).
struct GuardedChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let http: HTTP1WebSocketUpgradeChannel
    let connections: OpenConnections
    let limits: ConnectionLimits
    let metrics: CloudletMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress
        if let refusal = connections.open(from: address) {
            metrics.connectionRefused(reason: refusal.rawValue)
            do {
                try channel.pipeline.syncOperations.addHandler(ConnectionRefusalHandler(refusal))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        } else {
            channel.closeFuture.whenComplete { [connections] _ in connections.close(from: address) }
        }
        return http.setup(channel: channel, logger: logger).flatMapThrowing { [limits, metrics] value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(FirstRequestDeadlineHandler(limits: limits, metrics: metrics), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}

/// First in the pipeline of a connection over a bound: answers 503 with code 155 and
/// `Connection: close` once the connection is active, drops whatever arrives, and closes it.
final class ConnectionRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: [UInt8]

    init(_ refusal: OpenConnections.Refusal) {
        let message =
            switch refusal {
            case .total: "the server has too many connections open"
            case .address: "too many connections open from this address"
            }
        let body = JSONWriter.bytes(ParseError(code: 155, message: message, httpStatus: 503).body)
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: \(JSONResponse.contentType)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        answer = Array(head.utf8) + body
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
