import Cloudlet
import Hummingbird

/// A refused request answers 429 with `{"code": 155, "error": …}`, `Retry-After` and the
/// `RateLimit-Policy` / `RateLimit` fields.
extension RateLimitExceeded: HTTPResponseError {
    public var status: HTTPResponse.Status { .tooManyRequests }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.make(status: status, body: parseError.body, headers: headers)
    }

    /// The refusal as a Parse error, for a batch operation's `{"error": …}`.
    var parseError: ParseError { ParseError(code: 155, message: message, httpStatus: 429) }
}
