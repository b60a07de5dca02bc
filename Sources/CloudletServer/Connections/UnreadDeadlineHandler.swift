import CloudletRuntime
import NIOCore

/// Closes an upgraded (WebSocket) connection whose client leaves what is written to it unread: one
/// that has taken no more for ``ConnectionLimits/idleTimeout``, as ``ConnectionDeadlineHandler``
/// closes an HTTP connection whose answer is left unread (counted in
/// `cloudlet_connections_timed_out_total{reason="unread"}`). A reading client's connection has no
/// other deadline here: the WebSocket's pings keep it. It sits first in the pipeline.
final class UnreadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let limits: ConnectionLimits
    private let metrics: CloudletMetrics
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, metrics: CloudletMetrics) {
        self.limits = limits
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if !context.channel.isWritable { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            arm(context)
        }
        context.fireChannelWritabilityChanged()
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: TimeAmount(limits.idleTimeout)) { [metrics] in
            metrics.connectionTimedOut(reason: ConnectionDeadlineHandler.Reason.unread.rawValue)
            context.close(promise: nil)
        }
    }
}
