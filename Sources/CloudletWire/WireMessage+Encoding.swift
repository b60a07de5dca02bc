import NIOCore

extension WireMessage {
    /// Appends the message (without the frame's length prefix) to `buffer`.
    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Self.version)
        switch self {
        case .invoke(let call):
            buffer.writeHeader(.invoke, id: call.id)
            buffer.writeInteger(call.deadlineMilliseconds)
            buffer.writeInteger(call.kind)
            buffer.writeWireString(call.name)
            buffer.writeWireString(call.appId)
            buffer.writeWireString(call.requestId)
            buffer.writeOptionalWireString(call.userId)
            buffer.writeInteger(UInt32(call.roles.count))
            for role in call.roles { buffer.writeWireString(role) }
            buffer.writeInteger(call.isMaster ? 1 : 0 as UInt8)
            buffer.writeOptionalWireString(call.installationId)
            buffer.writeOptionalWireString(call.eventId)
            buffer.writeJSON(call.input)
            buffer.writeOptionalJSON(call.original)
        case .storeReply(let id, let outcome):
            buffer.writeHeader(.storeReply, id: id)
            buffer.writeOutcome(outcome)
        case .cancel(let id):
            buffer.writeHeader(.cancel, id: id)
        case .ping(let id):
            buffer.writeHeader(.ping, id: id)
        case .hello(let hello):
            buffer.writeHeader(.hello, id: 0)
            buffer.writeInteger(hello.processId)
            buffer.writeInteger(UInt32(hello.hooks.count))
            for hook in hello.hooks {
                buffer.writeInteger(hook.kind)
                buffer.writeWireString(hook.name)
                buffer.writeInteger(hook.timeLimitMilliseconds)
                buffer.writeInteger(hook.rateLimit?.scope ?? 0)
                if let limit = hook.rateLimit {
                    buffer.writeInteger(limit.count)
                    buffer.writeInteger(limit.windowMilliseconds)
                }
                buffer.writeInteger(hook.runsAfterResponse ? 1 : 0 as UInt8)
            }
        case .result(let id, let outcome):
            buffer.writeHeader(.result, id: id)
            buffer.writeOutcome(outcome)
        case .storeCall(let call):
            buffer.writeHeader(.storeCall, id: call.id)
            buffer.writeInteger(call.invocationId)
            buffer.writeInteger(call.operation.rawValue)
            buffer.writeInteger(call.asMaster ? 1 : 0 as UInt8)
            buffer.writeJSON(call.arguments)
        case .log(let record):
            buffer.writeHeader(.log, id: record.invocationId)
            buffer.writeInteger(record.level)
            buffer.writeWireString(record.message)
            buffer.writeJSON(record.metadata)
        case .pong(let id):
            buffer.writeHeader(.pong, id: id)
        }
    }

    /// The message as a new buffer.
    public func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 64)
        encode(into: &buffer)
        return buffer
    }
}

extension ByteBuffer {
    fileprivate mutating func writeHeader(_ type: WireMessage.MessageType, id: UInt64) {
        writeInteger(type.rawValue)
        writeInteger(id)
    }

    fileprivate mutating func writeWireString(_ text: String) {
        let lengthIndex = writerIndex
        writeInteger(UInt32(0))
        let count = writeString(text)
        setInteger(UInt32(count), at: lengthIndex)
    }

    fileprivate mutating func writeOptionalWireString(_ text: String?) {
        writeInteger(text == nil ? 0 : 1 as UInt8)
        if let text { writeWireString(text) }
    }

    fileprivate mutating func writeJSON(_ json: ByteBuffer) {
        writeInteger(UInt32(json.readableBytes))
        writeImmutableBuffer(json)
    }

    fileprivate mutating func writeOptionalJSON(_ json: ByteBuffer?) {
        writeInteger(json == nil ? 0 : 1 as UInt8)
        if let json { writeJSON(json) }
    }

    fileprivate mutating func writeOutcome(_ outcome: WireOutcome) {
        switch outcome {
        case .success(let json):
            writeInteger(0 as UInt8)
            writeJSON(json)
        case .refused(let code, let message):
            writeInteger(1 as UInt8)
            writeInteger(code)
            writeWireString(message)
        case .failed(let description):
            writeInteger(2 as UInt8)
            writeWireString(description)
        }
    }
}
