import NIOCore

/// The framing of a CloudletWire connection: each message behind a 4-byte big-endian length, and no
/// frame longer than a bound.
public enum WireFraming {
    /// The longest frame either side sends or buffers: 16 MiB. A hook result or store call larger
    /// than this is refused as that call's error; the connection carries on.
    public static let maximumFrameBytes = 16 << 20

    /// Adds the frame decoder and the length prepender to a channel's pipeline; after them, inbound
    /// data are ``WireFrame``s and outbound data are whole messages as `ByteBuffer`s.
    public static func addHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, maximumFrameBytes: Int = WireFraming.maximumFrameBytes
    ) throws {
        try pipeline.addHandler(ByteToMessageHandler(WireFrameDecoder(maximumFrameBytes: maximumFrameBytes)))
        try pipeline.addHandler(WireLengthPrepender())
    }
}

/// What the frame decoder hands on: a whole message, or the head of a frame over the bound, whose
/// body is skipped as it arrives instead of being buffered.
public enum WireFrame: Sendable {
    /// The bytes of one message, after the length prefix.
    case message(ByteBuffer)
    /// A frame over the bound: which message it was (as far as its first bytes tell) and its length.
    case oversized(WireFrameHead)
}

/// The first bytes of a frame: enough to tell which call an oversized frame belonged to.
public struct WireFrameHead: Sendable, Equatable {
    /// The message type, or nil if the frame's version or type is unknown.
    public var type: WireMessage.MessageType?
    /// The invocation, store call or ping id the message belongs to.
    public var id: UInt64
    /// The frame's length, without its prefix.
    public var length: Int

    public init(type: WireMessage.MessageType?, id: UInt64, length: Int) {
        self.type = type
        self.id = id
        self.length = length
    }
}

/// Splits the byte stream into frames. A frame over `maximumFrameBytes` is reported by its head
/// (version, type and id: 10 bytes) and its body skipped, so memory stays bounded whatever a peer sends.
struct WireFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = WireFrame

    /// Bytes of version, type and id at the start of every message.
    static let headBytes = 10

    let maximumFrameBytes: Int
    /// Bytes of an oversized frame still to skip.
    private var skipping = 0

    init(maximumFrameBytes: Int) {
        self.maximumFrameBytes = max(maximumFrameBytes, Self.headBytes)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if skipping > 0 {
            let skipped = min(skipping, buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: skipped)
            skipping -= skipped
            return skipping == 0 ? .continue : .needMoreData
        }
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self).map(Int.init) else { return .needMoreData }
        if length <= maximumFrameBytes {
            guard buffer.readableBytes >= 4 + length else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: 4)
            context.fireChannelRead(NIOAny(WireFrame.message(buffer.readSlice(length: length)!)))
            return .continue
        }
        guard buffer.readableBytes >= 4 + Self.headBytes else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        let version = buffer.readInteger(as: UInt8.self)!
        let type = buffer.readInteger(as: UInt8.self)!
        let id = buffer.readInteger(as: UInt64.self)!
        let known = version == WireMessage.version ? WireMessage.MessageType(rawValue: type) : nil
        context.fireChannelRead(NIOAny(WireFrame.oversized(WireFrameHead(type: known, id: id, length: length))))
        skipping = length - Self.headBytes
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
