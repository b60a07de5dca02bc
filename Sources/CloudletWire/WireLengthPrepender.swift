import NIOCore

/// Puts each outbound message behind its length, 4 bytes big-endian, as ``WireFrameDecoder`` reads
/// it: the prefix and the message go out as two writes, so the message is never copied.
final class WireLengthPrepender: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A message longer than a 4-byte length can say; the frame bound keeps every sent one far below it.
    struct MessageTooLong: Error {}

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let length = UInt32(exactly: unwrapOutboundIn(data).readableBytes) else {
            promise?.fail(MessageTooLong())
            return
        }
        var prefix = context.channel.allocator.buffer(capacity: 4)
        prefix.writeInteger(length)
        context.write(wrapOutboundOut(prefix), promise: nil)
        context.write(data, promise: promise)
    }
}
