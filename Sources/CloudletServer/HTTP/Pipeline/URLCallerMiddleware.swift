import CloudletRuntime
import Hummingbird

/// The caller of a route that needs only its URL (a file's download): no keys are asked for, and
/// no session is looked up; the request acts as an anonymous client, and counts against the app's
/// rate limits as one.
struct URLCallerMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = Caller(isMaster: false, requestId: context.requestId)
        return try await next(request, context)
    }
}
