import Cloudlet
import Hummingbird

/// Charges a request to its app's rate limits: the app's quota as soon as the app and keys are
/// known (before the body is read), the rules once the caller and the method it means are known
/// (before any hook runs or any byte is written). Over a limit: 429, code 155, `Retry-After` and
/// the `RateLimit-Policy` / `RateLimit` fields; the tightest limit's fields go on every response.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ParseRequestContext
    /// Which limits this step charges: ``RateLimitStage/quota`` or ``RateLimitStage/rules``.
    let stage: RateLimitStage
    /// The mount path, which rule paths are below.
    let mountPath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let caller = context.caller
        let path = request.uri.path.dropFirst(mountPath.count)
        let limited = RateLimitedRequest(
            path: String(path), method: context.parse.servedMethod(of: request).rawValue, address: context.parse.address,
            userId: caller.userId, sessionTokenHash: caller.sessionTokenHash, isMaster: caller.isMaster)
        context.parse.note(try await context.app.rateLimiter.admit(limited, stage))
        return try await next(request, context)
    }
}
