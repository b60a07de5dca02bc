import CloudletWire
import NIOCore
import Testing

/// Golden frames: these bytes are the format. A change that breaks one needs a new ``WireMessage/version``.
@Suite struct WireFormatTests {
    private func hex(_ message: WireMessage) -> String {
        message.encoded().readableBytesView.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private func json(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func invokePinsItsBytes() throws {
        let message = WireMessage.invoke(
            WireInvocation(
                id: 7, deadlineMilliseconds: 1_700_000_000_000, kind: 1, name: "Po", appId: "a", requestId: "r",
                userId: "u", isMaster: true, installationId: nil, eventId: nil, input: json("{}"), original: nil, roles: ["A"]))
        #expect(
            hex(message)
                == "03" + "01" + "0000000000000007"  // version, invoke, id
                + "0000018bcfe56800" + "01"  // deadline ms, beforeSave
                + "00000002506f" + "0000000161" + "0000000172"  // name "Po", app "a", request "r"
                + "01" + "0000000175" + "00000001" + "0000000141"  // user "u", its roles: "A"
                + "01" + "00" + "00"  // master, no installation, no event
                + "000000027b7d" + "00")  // input {}, no original
        #expect(try WireMessage(decoding: message.encoded()) == message)
    }

    @Test func helloPinsItsBytes() throws {
        let message = WireMessage.hello(
            WireHello(processId: 258, hooks: [WireHello.Hook(kind: 5, name: "f", timeLimitMilliseconds: 15_000)]))
        #expect(
            hex(message) == "03" + "81" + "0000000000000000" + "00000102" + "00000001" + "05" + "0000000166" + "0000000000003a98"
                + "00" + "00")  // no rate limit, runs before the response
        #expect(try WireMessage(decoding: message.encoded()) == message)
        let limited = WireMessage.hello(
            WireHello(
                processId: 258,
                hooks: [
                    WireHello.Hook(
                        kind: 5, name: "f", timeLimitMilliseconds: 15_000,
                        rateLimit: WireHello.RateLimit(scope: 2, count: 5, windowMilliseconds: 60_000), runsAfterResponse: true)
                ]))
        #expect(hex(limited).hasSuffix("0000000000003a98" + "02" + "00000005" + "000000000000ea60" + "01"))  // per address, 5 per 60 s; after the response
        #expect(try WireMessage(decoding: limited.encoded()) == limited)
    }

    @Test func outcomesPinTheirBytes() throws {
        let success = WireMessage.result(id: 1, .success(json: json("1")))
        let refused = WireMessage.result(id: 1, .refused(code: 142, message: "no"))
        let failed = WireMessage.storeReply(id: 2, .failed(description: "x"))
        #expect(hex(success) == "03820000000000000001" + "00" + "0000000131")
        #expect(hex(refused) == "03820000000000000001" + "01" + "0000008e" + "000000026e6f")
        #expect(hex(failed) == "03020000000000000002" + "02" + "0000000178")
        for message in [success, refused, failed] {
            #expect(try WireMessage(decoding: message.encoded()) == message)
        }
    }

    @Test func storeCallLogAndControlMessagesPinTheirBytes() throws {
        let call = WireMessage.storeCall(WireStoreCall(id: 3, invocationId: 7, operation: .save, asMaster: true, arguments: json("{}")))
        let log = WireMessage.log(WireLogRecord(invocationId: 7, level: 2, message: "hi", metadata: json("{}")))
        #expect(hex(call) == "03830000000000000003" + "0000000000000007" + "04" + "01" + "000000027b7d")
        #expect(hex(log) == "03840000000000000007" + "02" + "000000026869" + "000000027b7d")
        #expect(hex(.cancel(id: 9)) == "03030000000000000009")
        #expect(hex(.ping(id: 9)) == "03040000000000000009")
        #expect(hex(.pong(id: 9)) == "03850000000000000009")
        for message in [call, log, .cancel(id: 9), .ping(id: 9), .pong(id: 9)] {
            #expect(try WireMessage(decoding: message.encoded()) == message)
        }
    }

    @Test func decodingRejectsForeignAndTruncatedFrames() {
        var otherVersion = WireMessage.ping(id: 1).encoded()
        otherVersion.setInteger(WireMessage.version + 1, at: otherVersion.readerIndex)
        #expect(throws: WireFormatError.self) { try WireMessage(decoding: otherVersion) }

        let whole = WireMessage.result(id: 1, .refused(code: 1, message: "abc")).encoded()
        let truncated = whole.getSlice(at: whole.readerIndex, length: whole.readableBytes - 1)!
        #expect(throws: WireFormatError.self) { try WireMessage(decoding: truncated) }

        var trailing = WireMessage.pong(id: 1).encoded()
        trailing.writeInteger(UInt8(0))
        #expect(throws: WireFormatError.self) { try WireMessage(decoding: trailing) }
    }

    @Test func aRoleCountPastTheFrameIsRefused() {
        var frame = WireMessage.invoke(
            WireInvocation(
                id: 1, deadlineMilliseconds: 0, kind: 1, name: "P", appId: "a", requestId: "r", userId: "u", isMaster: false,
                installationId: nil, eventId: nil, input: json("{}"), original: nil)
        ).encoded()
        // The role count follows version, type, id, deadline, kind, the three strings and the user.
        let countIndex = frame.readerIndex + 1 + 1 + 8 + 8 + 1 + 5 * 3 + 1 + 5
        #expect(frame.getInteger(at: countIndex, as: UInt32.self) == 0)
        frame.setInteger(UInt32.max, at: countIndex)
        #expect(throws: WireFormatError.self) { try WireMessage(decoding: frame) }
    }

    @Test func manyCallsInFlightKeepTheirIds() throws {
        let messages = (1...100).map { WireMessage.result(id: UInt64($0), .success(json: json("\($0)"))) }
        let decoded = try messages.map { try WireMessage(decoding: $0.encoded()) }
        #expect(decoded == messages)
    }
}
