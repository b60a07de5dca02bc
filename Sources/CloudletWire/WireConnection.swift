import NIOCore

/// One end of a CloudletWire connection: sends messages from any thread, and hands each message that
/// arrives to `onMessage` on the channel's event loop, then `onClose` once when the connection ends.
///
/// A frame that does not decode closes the connection: the two sides no longer agree on the format.
/// A frame over the size bound goes to `onOversized` (by default: close), which can refuse the one
/// call it belonged to and keep the connection.
public final class WireConnection: Sendable {
    /// The channel the connection runs on.
    public let channel: any Channel
    /// The longest message ``send(_:)`` writes.
    public let maximumFrameBytes: Int

    /// A connection over `channel`, whose pipeline must already hold ``WireFraming``'s handlers.
    public init(
        channel: any Channel, maximumFrameBytes: Int = WireFraming.maximumFrameBytes,
        onMessage: @escaping @Sendable (WireMessage) -> Void,
        onOversized: (@Sendable (WireFrameHead) -> Void)? = nil, onClose: @escaping @Sendable () -> Void = {}
    ) throws {
        self.channel = channel
        self.maximumFrameBytes = maximumFrameBytes
        let onOversized = onOversized ?? { [channel] _ in channel.close(promise: nil) }
        try channel.pipeline.syncOperations.addHandler(MessageHandler(onMessage: onMessage, onOversized: onOversized, onClose: onClose))
    }

    /// Writes `message` and flushes it; returns false, writing nothing, if it is over the size bound.
    @discardableResult
    public func send(_ message: WireMessage) -> Bool {
        var buffer = channel.allocator.buffer(capacity: 128)
        message.encode(into: &buffer)
        guard buffer.readableBytes <= maximumFrameBytes else { return false }
        channel.writeAndFlush(buffer, promise: nil)
        return true
    }

    /// Closes the connection.
    public func close() {
        channel.close(promise: nil)
    }

    private final class MessageHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = WireFrame

        let onMessage: @Sendable (WireMessage) -> Void
        let onOversized: @Sendable (WireFrameHead) -> Void
        let onClose: @Sendable () -> Void

        init(
            onMessage: @escaping @Sendable (WireMessage) -> Void, onOversized: @escaping @Sendable (WireFrameHead) -> Void,
            onClose: @escaping @Sendable () -> Void
        ) {
            self.onMessage = onMessage
            self.onOversized = onOversized
            self.onClose = onClose
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .message(let frame):
                do {
                    onMessage(try WireMessage(decoding: frame))
                } catch {
                    context.close(promise: nil)
                }
            case .oversized(let head):
                onOversized(head)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            onClose()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
