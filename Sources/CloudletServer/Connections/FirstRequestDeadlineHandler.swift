import Cloudlet
import CloudletRuntime
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Holds a connection's first request to the bounds ``ConnectionDeadlineHandler`` holds every
/// later one to, while the server waits for its head to see whether it asks for a WebSocket (until
/// then the HTTP handlers are not in the pipeline): closes the connection if no byte arrives within
/// ``ConnectionLimits/idleTimeout`` of its opening, or if the head is still incomplete
/// ``ConnectionLimits/headerTimeout`` after its first byte, and answers a request the parser
/// refuses as ``MalformedRequestHandler`` does. It sits right after the HTTP decoder and leaves as
/// soon as the head is read, whatever the request becomes.
final class FirstRequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: ConnectionLimits
    private let metrics: CloudletMetrics
    /// Whether the head's first bytes have arrived.
    private var headBegun = false
    private var timer: Scheduled<Void>?
    /// Whether the request was refused (the connection is closing).
    private var refused = false

    init(limits: ConnectionLimits, metrics: CloudletMetrics) {
        self.limits = limits
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, after: limits.idleTimeout, reason: .idle) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, after: limits.idleTimeout, reason: .idle)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        if case .head = unwrapInboundIn(data) { context.pipeline.syncOperations.removeHandler(self, promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !headBegun {
            headBegun = true
            arm(context, after: limits.headerTimeout, reason: .head)
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        guard !refused else { return }
        refused = true
        timer?.cancel()
        let refusal = MalformedRequestHandler.refusal(of: parserError)
        let body = ByteBuffer(bytes: JSONWriter.bytes(refusal.body))
        let headers = HTTPHeaders([
            ("Content-Type", JSONResponse.contentType), ("Content-Length", String(body.readableBytes)), ("Connection", "close"),
        ])
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: refusal.status.code), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Closes the connection `delay` from now for `reason`, in place of the deadline set before.
    private func arm(_ context: ChannelHandlerContext, after delay: Duration, reason: ConnectionDeadlineHandler.Reason) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: TimeAmount(delay)) { [metrics] in
            metrics.connectionTimedOut(reason: reason.rawValue)
            context.close(promise: nil)
        }
    }
}
