import CloudletWire
import NIOCore
import NIOEmbedded
import Testing

/// The frame bound: a frame over it is reported by its head and skipped as it arrives, never buffered.
@Suite struct WireFrameDecoderTests {
    private func channel(maximumFrameBytes: Int) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try WireFraming.addHandlers(to: channel.pipeline.syncOperations, maximumFrameBytes: maximumFrameBytes)
        return channel
    }

    private func frame(_ message: WireMessage) -> ByteBuffer {
        var buffer = ByteBuffer()
        let body = message.encoded()
        buffer.writeInteger(UInt32(body.readableBytes))
        buffer.writeImmutableBuffer(body)
        return buffer
    }

    @Test func aFrameOverTheBoundIsReportedByItsHeadAndTheNextFrameStillDecodes() throws {
        let channel = try channel(maximumFrameBytes: 64)
        let big = WireMessage.result(id: 9, .success(json: ByteBuffer(string: "\"" + String(repeating: "x", count: 1000) + "\"")))
        let small = WireMessage.result(id: 10, .success(json: ByteBuffer(string: "1")))
        var bytes = frame(big)
        bytes.writeImmutableBuffer(frame(small))
        // In pieces, as a socket delivers them: nothing of the big frame's body is kept meanwhile.
        while bytes.readableBytes > 0 {
            try channel.writeInbound(bytes.readSlice(length: min(100, bytes.readableBytes))!)
        }
        guard case .oversized(let head) = try channel.readInbound(as: WireFrame.self) else {
            Issue.record("the big frame was not reported as oversized")
            return
        }
        #expect(head == WireFrameHead(type: .result, id: 9, length: big.encoded().readableBytes))
        guard case .message(let message) = try channel.readInbound(as: WireFrame.self) else {
            Issue.record("the frame after it did not decode")
            return
        }
        #expect(try WireMessage(decoding: message) == small)
        #expect(try channel.readInbound(as: WireFrame.self) == nil)
    }

    @Test func aSentMessageGoesOutBehindItsLengthAndDecodesWhole() throws {
        let channel = try channel(maximumFrameBytes: 64)
        let message = WireMessage.pong(id: 7)
        try channel.writeOutbound(message.encoded())
        var sent = ByteBuffer()
        while var piece = try channel.readOutbound(as: ByteBuffer.self) { sent.writeBuffer(&piece) }
        #expect(sent == frame(message))
        try channel.writeInbound(sent)
        guard case .message(let body) = try channel.readInbound(as: WireFrame.self) else {
            Issue.record("the sent frame did not decode")
            return
        }
        #expect(try WireMessage(decoding: body) == message)
    }

    @Test func aConnectionSendsNothingOverTheBound() throws {
        let channel = try channel(maximumFrameBytes: 64)
        let connection = try WireConnection(channel: channel, maximumFrameBytes: 64, onMessage: { _ in })
        #expect(!connection.send(.result(id: 1, .success(json: ByteBuffer(string: String(repeating: "1", count: 100))))))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(connection.send(.pong(id: 1)))
        // Sends are flushed together once the event loop turns to its queued work.
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) != nil)
    }
}
