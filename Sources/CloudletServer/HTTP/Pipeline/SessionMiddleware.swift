import Cloudlet
import Hummingbird

/// Resolves the session token (`X-Parse-Session-Token` or `_SessionToken`), if one came, to its
/// user and roles; an unknown, revoked or expired one is refused with 209.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let token = request.headers[ParseHeaders.sessionToken] ?? context.parse.transport.sessionToken
        if let token {
            var caller = try context.parse.requireCaller()
            let resolved = try await context.parse.requireApp().runtime.caller(
                sessionToken: token, installationId: caller.installationId, requestId: caller.requestId)
            let isMaster = caller.isMaster
            caller = resolved
            caller.isMaster = isMaster
            context.parse.caller = caller
            context.parse.sessionToken = token
        }
        return try await next(request, context)
    }
}
