import Cloudlet
import CloudletRuntime
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel behind the server's connection bounds. Each accepted connection is
/// counted, in all and by client address, until it closes; one over a bound is counted in
/// `cloudlet_connections_refused_total{reason}`, answered 503 with a Parse body as soon as it is
/// active, and closed: nothing it sends is read.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let connections: OpenConnections
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
        return http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
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
