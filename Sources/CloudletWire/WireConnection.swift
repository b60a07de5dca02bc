import NIOCore
import Synchronization

/// One end of a CloudletWire connection: sends messages from any thread, and hands each message that
/// arrives to `onMessage` on the channel's event loop, then `onClose` once when the connection ends.
///
/// A frame that does not decode closes the connection: the two sides no longer agree on the format.
/// A frame over the size bound goes to `onOversized` (by default: close), which can refuse the one
/// call it belonged to and keep the connection.
public final class WireConnection: WireTransport {
    /// The channel the connection runs on.
    public let channel: any Channel
    /// The longest message ``send(_:)`` writes.
    public let maximumFrameBytes: Int

    /// A connection over `channel`, whose pipeline must already hold ``WireFraming``'s handlers.
    public convenience init(channel: any Channel, maximumFrameBytes: Int = WireFraming.maximumFrameBytes, receiver: WireReceiver) throws {
        try self.init(
            channel: channel, maximumFrameBytes: maximumFrameBytes, onMessage: receiver.message, onOversized: receiver.oversized,
            onClose: receiver.closed)
    }

    /// A connection over `channel`, whose pipeline must already hold ``WireFraming``'s handlers.
    public init(
        channel: any Channel, maximumFrameBytes: Int = WireFraming.maximumFrameBytes,
        onMessage: @escaping @Sendable (WireMessage) -> Void,
        onOversized: (@Sendable (WireFrameHead) -> Void)? = nil, onClose: @escaping @Sendable () -> Void = {}
    ) throws {
        self.channel = channel
        self.maximumFrameBytes = maximumFrameBytes
        writer = CoalescingWriter(channel: channel)
        let onOversized = onOversized ?? { [channel] _ in channel.close(promise: nil) }
        try channel.pipeline.syncOperations.addHandler(MessageHandler(onMessage: onMessage, onOversized: onOversized, onClose: onClose))
    }

    /// Writes `message`, to be flushed with the messages written before the channel's event loop
    /// next gets to its queued work: many calls in flight share one system call, and the messages
    /// sent from other threads meanwhile share one hand-off to the loop. Returns false, writing
    /// nothing, if it is over the size bound.
    @discardableResult
    public func send(_ message: WireMessage) -> Bool {
        var buffer = channel.allocator.buffer(capacity: 128)
        message.encode(into: &buffer)
        guard buffer.readableBytes <= maximumFrameBytes else { return false }
        writer.write(buffer)
        return true
    }

    private let writer: CoalescingWriter

    /// Closes the connection once the messages sent before are flushed.
    public func close() {
        channel.eventLoop.execute { [channel] in
            channel.flush()
            channel.close(promise: nil)
        }
    }

    /// Writes on the channel's event loop and flushes once per turn of its queued work. Frames
    /// written from other threads wait in `waiting` until one task queued on the loop writes them
    /// all; a frame written on the loop goes after them, so each sender's frames keep their order.
    private final class CoalescingWriter: @unchecked Sendable {
        private struct Waiting {
            var frames: [ByteBuffer] = []
            var isTaskQueued = false
        }

        private let channel: any Channel
        private let waiting = Mutex(Waiting())
        /// Whether a flush is queued; read and written on the event loop only.
        private var isFlushQueued = false

        init(channel: any Channel) {
            self.channel = channel
        }

        /// Writes `buffer`, from any thread.
        func write(_ buffer: ByteBuffer) {
            if channel.eventLoop.inEventLoop {
                writeWaiting()
                writeOnLoop(buffer)
                return
            }
            let queueTask = waiting.withLock { waiting in
                waiting.frames.append(buffer)
                defer { waiting.isTaskQueued = true }
                return !waiting.isTaskQueued
            }
            if queueTask { channel.eventLoop.execute { self.writeWaiting() } }
        }

        /// Writes the frames other threads wrote (on the event loop).
        private func writeWaiting() {
            let frames = waiting.withLock { waiting in
                waiting.isTaskQueued = false
                defer { waiting.frames.removeAll(keepingCapacity: true) }
                return waiting.frames
            }
            for frame in frames { writeOnLoop(frame) }
        }

        /// Writes `buffer` (on the event loop) and queues a flush behind the writes already queued.
        private func writeOnLoop(_ buffer: ByteBuffer) {
            channel.eventLoop.assertInEventLoop()
            channel.write(buffer, promise: nil)
            guard !isFlushQueued else { return }
            isFlushQueued = true
            channel.eventLoop.execute {
                self.isFlushQueued = false
                self.channel.flush()
            }
        }
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
