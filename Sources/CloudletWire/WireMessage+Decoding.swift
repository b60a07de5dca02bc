import NIOCore

/// A frame that does not hold a message this build understands.
public struct WireFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "CloudletWire: \(reason)" }
}

extension WireMessage {
    /// Reads one message from the whole of `frame` (the bytes after the length prefix). JSON payloads
    /// are slices of `frame`, not copies.
    public init(decoding frame: ByteBuffer) throws(WireFormatError) {
        var buffer = frame
        let version: UInt8 = try buffer.readWire()
        guard version == Self.version else { throw WireFormatError("unsupported version \(version)") }
        let typeByte: UInt8 = try buffer.readWire()
        guard let type = MessageType(rawValue: typeByte) else { throw WireFormatError("unknown message type \(typeByte)") }
        let id: UInt64 = try buffer.readWire()
        switch type {
        case .invoke:
            let deadline: Int64 = try buffer.readWire()
            let kind = try buffer.readKind()
            let (name, appId, requestId) = (try buffer.readWireString(), try buffer.readWireString(), try buffer.readWireString())
            let userId = try buffer.readOptionalWireString()
            let roles = try buffer.readWireStrings()
            self = .invoke(
                WireInvocation(
                    id: id, deadlineMilliseconds: deadline, kind: kind, name: name, appId: appId, requestId: requestId,
                    userId: userId, isMaster: try buffer.readFlag(),
                    installationId: try buffer.readOptionalWireString(), eventId: try buffer.readOptionalWireString(),
                    input: try buffer.readJSON(), original: try buffer.readFlag() ? try buffer.readJSON() : nil, roles: roles))
        case .storeReply:
            self = .storeReply(id: id, try buffer.readOutcome())
        case .cancel:
            self = .cancel(id: id)
        case .ping:
            self = .ping(id: id)
        case .hello:
            let processId: Int32 = try buffer.readWire()
            let count: UInt32 = try buffer.readWire()
            guard count <= buffer.readableBytes else { throw WireFormatError("hook count \(count) past the frame") }
            var hooks: [WireHello.Hook] = []
            for _ in 0..<count {
                var hook = WireHello.Hook(kind: try buffer.readKind(), name: try buffer.readWireString(), timeLimitMilliseconds: try buffer.readWire())
                let scope: UInt8 = try buffer.readWire()
                if scope != 0 {
                    hook.rateLimit = WireHello.RateLimit(scope: scope, count: try buffer.readWire(), windowMilliseconds: try buffer.readWire())
                }
                hook.runsAfterResponse = try buffer.readFlag()
                hooks.append(hook)
            }
            self = .hello(WireHello(processId: processId, hooks: hooks))
        case .result:
            self = .result(id: id, try buffer.readOutcome())
        case .storeCall:
            let invocationId: UInt64 = try buffer.readWire()
            let operationByte: UInt8 = try buffer.readWire()
            guard let operation = WireStoreOperation(rawValue: operationByte) else {
                throw WireFormatError("unknown store operation \(operationByte)")
            }
            self = .storeCall(
                WireStoreCall(
                    id: id, invocationId: invocationId, operation: operation, asMaster: try buffer.readFlag(),
                    arguments: try buffer.readJSON()))
        case .log:
            self = .log(
                WireLogRecord(
                    invocationId: id, level: try buffer.readWire(), message: try buffer.readWireString(),
                    metadata: try buffer.readJSON()))
        case .pong:
            self = .pong(id: id)
        }
        guard buffer.readableBytes == 0 else { throw WireFormatError("\(buffer.readableBytes) bytes left after the message") }
    }
}

extension ByteBuffer {
    fileprivate mutating func readWire<Integer: FixedWidthInteger>() throws(WireFormatError) -> Integer {
        guard let value = readInteger(as: Integer.self) else { throw WireFormatError("frame ends early") }
        return value
    }

    fileprivate mutating func readFlag() throws(WireFormatError) -> Bool {
        let byte: UInt8 = try readWire()
        guard byte <= 1 else { throw WireFormatError("invalid flag \(byte)") }
        return byte == 1
    }

    /// A hook kind's number; which numbers stand for kinds is the SDK's table's to say.
    fileprivate mutating func readKind() throws(WireFormatError) -> UInt8 {
        try readWire()
    }

    fileprivate mutating func readWireString() throws(WireFormatError) -> String {
        let length: UInt32 = try readWire()
        guard let text = readString(length: Int(length)) else { throw WireFormatError("string past the frame") }
        return text
    }

    /// A u32 count and that many strings; a count the rest of the frame cannot hold is refused
    /// before anything is kept for it.
    fileprivate mutating func readWireStrings() throws(WireFormatError) -> [String] {
        let count: UInt32 = try readWire()
        guard Int(count) <= readableBytes / 4 else { throw WireFormatError("string count \(count) past the frame") }
        var strings: [String] = []
        for _ in 0..<count { strings.append(try readWireString()) }
        return strings
    }

    fileprivate mutating func readOptionalWireString() throws(WireFormatError) -> String? {
        try readFlag() ? try readWireString() : nil
    }

    fileprivate mutating func readJSON() throws(WireFormatError) -> ByteBuffer {
        let length: UInt32 = try readWire()
        guard let slice = readSlice(length: Int(length)) else { throw WireFormatError("JSON past the frame") }
        return slice
    }

    fileprivate mutating func readOutcome() throws(WireFormatError) -> WireOutcome {
        let status: UInt8 = try readWire()
        switch status {
        case 0: return .success(json: try readJSON())
        case 1: return .refused(code: try readWire(), message: try readWireString())
        case 2: return .failed(description: try readWireString())
        default: throw WireFormatError("unknown outcome status \(status)")
        }
    }
}
