import Cloudlet
import Hummingbird
import Synchronization

/// The request bodies read before their app and keys are known: the JavaScript SDK's body form,
/// which carries `_ApplicationId` and `_JavaScriptKey` inside a `text/plain` body. Anyone can send
/// one, so they are read in two bounded pools shared by the whole host:
///
/// - most bodies take one of ``maximumConcurrentReads`` slots and are read to at most
///   ``maximumBytes`` (a whole object of the default `--max-object-bytes`);
/// - a body that declares a longer `Content-Length` that its route takes (the JSON form of a file
///   upload, base64 and all) takes one of ``maximumConcurrentLargeReads`` slots instead, and is
///   read to the route's bound.
///
/// A `Content-Length` over the bound that applies is refused with 413/116 before a byte is read, a
/// chunked body is cut off at ``maximumBytes``, and a body finding its pool full is refused with
/// 503/155 without being read. So such bodies never hold more than
/// `64 × 1 MiB + 4 × the largest route bound` of the host's memory. Requests with their app and
/// keys in the headers never wait here.
final class UnauthenticatedBodyReads: Sendable {
    /// The largest body read in the common pool.
    static let maximumBytes = 1 << 20
    /// The most bodies read at once in the common pool, across all apps.
    static let maximumConcurrentReads = 64
    /// The most bodies longer than ``maximumBytes`` read at once, across all apps.
    static let maximumConcurrentLargeReads = 4

    /// How many bodies each pool is reading.
    private let reading = Mutex((common: 0, large: 0))

    /// Reads the body of `request` into `state` as ``BodyMiddleware/read(_:into:maximumBytes:)``
    /// does, to at most `maximumBytes` (the route's bound), in a slot of the pool its declared
    /// length calls for; nothing when the body has been read already.
    func read(_ request: inout Request, into state: inout ParseRequestState, maximumBytes: Int) async throws {
        guard state.body == nil else { return }
        let declared = state.headers.contentLength ?? 0
        let large = declared > Self.maximumBytes && maximumBytes > Self.maximumBytes
        let bound = large ? maximumBytes : min(maximumBytes, Self.maximumBytes)
        try BodyMiddleware.refuseDeclaredLength(declared, over: bound)
        let admitted = reading.withLock { count in
            if large {
                guard count.large < Self.maximumConcurrentLargeReads else { return false }
                count.large += 1
            } else {
                guard count.common < Self.maximumConcurrentReads else { return false }
                count.common += 1
            }
            return true
        }
        guard admitted else {
            throw ParseError(
                code: 155, message: "Too many requests with their keys in the body are being read; retry, or send the keys as headers.",
                httpStatus: 503)
        }
        defer { reading.withLock { large ? ($0.large -= 1) : ($0.common -= 1) } }
        try await BodyMiddleware.read(&request, into: &state, maximumBytes: bound)
    }
}
