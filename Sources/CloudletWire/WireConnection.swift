import NIOCore

/// One end of a CloudletWire connection: sends messages from any thread, and hands each message that
/// arrives to `onMessage` on the channel's event loop, then `onClose` once when the connection ends.
///
/// A frame that does not decode closes the connection: the two sides no longer agree on the format.
public final class WireConnection: Sendable {
    /// The channel the connection runs on.
    public let channel: any Channel

    /// A connection over `channel`, whose pipeline must already hold ``WireFraming``'s handlers.
    public init(
        channel: any Channel, onMessage: @escaping @Sendable (WireMessage) -> Void, onClose: @escaping @Sendable () -> Void = {}
    ) throws {
        self.channel = channel
        try channel.pipeline.syncOperations.addHandler(MessageHandler(onMessage: onMessage, onClose: onClose))
    }

    /// Writes `message` and flushes it.
    public func send(_ message: WireMessage) {
        var buffer = channel.allocator.buffer(capacity: 128)
        message.encode(into: &buffer)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Closes the connection.
    public func close() {
        channel.close(promise: nil)
    }

    private final class MessageHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        let onMessage: @Sendable (WireMessage) -> Void
        let onClose: @Sendable () -> Void

        init(onMessage: @escaping @Sendable (WireMessage) -> Void, onClose: @escaping @Sendable () -> Void) {
            self.onMessage = onMessage
            self.onClose = onClose
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            do {
                onMessage(try WireMessage(decoding: unwrapInboundIn(data)))
            } catch {
                context.close(promise: nil)
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
