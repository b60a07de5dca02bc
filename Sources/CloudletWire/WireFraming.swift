import NIOCore
import NIOExtras

/// The framing of a CloudletWire connection: each message behind a 4-byte big-endian length.
public enum WireFraming {
    /// Adds the frame decoder and the length prepender to a channel's pipeline; after them, inbound
    /// and outbound data are whole messages as `ByteBuffer`s.
    public static func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        try pipeline.addHandler(ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)))
        try pipeline.addHandler(LengthFieldPrepender(lengthFieldBitLength: .fourBytes))
    }
}
