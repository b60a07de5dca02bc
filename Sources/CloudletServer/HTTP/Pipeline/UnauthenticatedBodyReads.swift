import Cloudlet
import Hummingbird
import Synchronization

/// The request bodies read before their app and keys are known: the JavaScript SDK's body form,
/// which carries `_ApplicationId` and `_JavaScriptKey` inside a `text/plain` body. Anyone can send
/// one, so each is read to at most ``maximumBytes`` (a longer `Content-Length` is refused with
/// 413/116 before a byte is read, a chunked body is cut off there), and at most
/// ``maximumConcurrentReads`` are read at once across the host: one more is refused with 503/155
/// without being read. Requests with their app and keys in the headers never wait here.
final class UnauthenticatedBodyReads: Sendable {
    /// The largest body read before its app and keys are known: a whole object of the default
    /// `--max-object-bytes` in the body form.
    static let maximumBytes = 1 << 20
    /// The most bodies read at once, across all apps, before their app and keys are known.
    static let maximumConcurrentReads = 64

    /// How many such bodies are being read.
    private let reading = Mutex(0)

    /// Reads the body of `request` into `state` as ``BodyMiddleware/read(_:into:maximumBytes:)``
    /// does, to at most `maximumBytes` and ``maximumBytes``, in one of the host's slots for such
    /// reads; nothing when the body has been read already.
    func read(_ request: inout Request, into state: inout ParseRequestState, maximumBytes: Int) async throws {
        guard state.body == nil else { return }
        let bound = min(maximumBytes, Self.maximumBytes)
        try BodyMiddleware.refuseDeclaredLength(of: request, over: bound)
        let admitted = reading.withLock { count in
            guard count < Self.maximumConcurrentReads else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw ParseError(
                code: 155, message: "Too many requests with their keys in the body are being read; retry, or send the keys as headers.",
                httpStatus: 503)
        }
        defer { reading.withLock { $0 -= 1 } }
        try await BodyMiddleware.read(&request, into: &state, maximumBytes: bound)
    }
}
