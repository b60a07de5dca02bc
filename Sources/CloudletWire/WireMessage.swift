import NIOCore

/// One message between the host and a worker process, as it travels inside a frame.
///
/// Every frame on the Unix-domain socket is a 4-byte big-endian length followed by the message:
/// ```
/// u8  version      (WireMessage.version, 3)
/// u8  type         (0x01… host to worker, 0x81… worker to host)
/// u64 id           (the invocation, store call or ping this message belongs to; 0 for hello)
/// …   fields of the type, integers big-endian, strings and JSON as u32 length + bytes
/// ```
/// JSON payloads (objects, parameters, results) are carried as opaque bytes: the host writes them
/// once and the worker parses them once.
public enum WireMessage: Sendable, Equatable {
    /// Host → worker: run a hook.
    case invoke(WireInvocation)
    /// Host → worker: the answer to the worker's store call `id`.
    case storeReply(id: UInt64, WireOutcome)
    /// Host → worker: the caller of invocation `id` has given up; cancel its task.
    case cancel(id: UInt64)
    /// Host → worker: a health check, answered by ``pong(id:)``.
    case ping(id: UInt64)
    /// Worker → host: the worker is ready and serves these hooks.
    case hello(WireHello)
    /// Worker → host: the outcome of invocation `id`.
    case result(id: UInt64, WireOutcome)
    /// Worker → host: a hook calls the app's store.
    case storeCall(WireStoreCall)
    /// Worker → host: a hook logged a line.
    case log(WireLogRecord)
    /// Worker → host: the answer to ``ping(id:)``.
    case pong(id: UInt64)

    /// The version of the format this build writes and reads.
    public static let version: UInt8 = 3

    /// The type byte of each message.
    public enum MessageType: UInt8, Sendable {
        case invoke = 0x01
        case storeReply = 0x02
        case cancel = 0x03
        case ping = 0x04
        case hello = 0x81
        case result = 0x82
        case storeCall = 0x83
        case log = 0x84
        case pong = 0x85
    }
}

/// How a hook call or a store call ended.
public enum WireOutcome: Sendable, Equatable {
    /// It succeeded with this JSON value (`null` for hooks with no result). Status byte 0.
    case success(json: ByteBuffer)
    /// It was refused with a Parse error the client may see. Status byte 1.
    case refused(code: Int32, message: String)
    /// It failed in a way only the log may describe; the client gets a generic error. Status byte 2.
    case failed(description: String)
}
