import Cloudlet
import Hummingbird
import NIOCore
import NIOHTTP1

/// Reads the JSON body once its app and keys are known (bounded by the largest body the server
/// takes), takes the JavaScript SDK's transport members out of it, and settles the method the
/// request means (`_method`). A body read before them goes through ``UnauthenticatedBodyReads``.
struct BodyMiddleware: RouterMiddleware {
    typealias Context = ParseRequestContext
    let maximumBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        try await Self.read(&request, into: &context.parse, maximumBytes: maximumBodyBytes)
        let override = context.parse.transport.method.flatMap { HTTPRequest.Method($0.uppercased()) }
        context.parse.method = override ?? request.method.served
        return try await next(request, context)
    }

    /// Reads and parses the body into `state`, unless an earlier middleware already did: a
    /// `Content-Length` over `maximumBytes` is refused before a byte is read, and a chunked body is
    /// cut off once it passes it (413/116); a body cut short answers 400/107.
    static func read(_ request: inout Request, into state: inout ParseRequestState, maximumBytes: Int) async throws {
        guard state.body == nil else { return }
        try refuseDeclaredLength(state.headers.contentLength, over: maximumBytes)
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw tooLarge(maximumBytes)
        } catch is HTTPParserError {
            // The client closed the connection, or sent a malformed chunk, before the body's end.
            throw ParseError(code: 107, message: "the request body ended before it was complete", httpStatus: 400)
        }
        var body: [String: ParseValue] = [:]
        if buffer.readableBytes > 0 {
            let value: ParseValue
            do {
                value = try buffer.withUnsafeReadableBytes { try JSONParser.parse($0) }
            } catch let failure as JSONParser.Failure {
                throw ParseError.invalidJSON("invalid JSON: \(failure.reason) at byte \(failure.offset)")
            }
            guard let members = value.objectValue else { throw ParseError.invalidJSON("the body must be a JSON object") }
            body = members
            state.bodyBytes = buffer
        }
        state.transport = TransportFields(taking: &body)
        state.body = body
    }

    /// Throws 413/116 when a request's `Content-Length` (`declared`) is over `maximumBytes`.
    static func refuseDeclaredLength(_ declared: Int?, over maximumBytes: Int) throws {
        if let declared, declared > maximumBytes { throw tooLarge(maximumBytes) }
    }

    private static func tooLarge(_ maximumBytes: Int) -> ParseError {
        ParseError(code: 116, message: "request body is larger than \(maximumBytes) bytes", httpStatus: 413)
    }
}
