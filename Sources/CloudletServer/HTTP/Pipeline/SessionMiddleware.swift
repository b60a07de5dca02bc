import Cloudlet
import Hummingbird

/// Resolves the session token (`X-Parse-Session-Token` or `_SessionToken`), if one came, to its
/// user and roles; an unknown, revoked or expired one is refused with 209.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = ParseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let token = context.parse.headers.sessionToken ?? context.parse.transport.sessionToken
        if let token {
            let isMaster = context.caller.isMaster
            context.caller = try await context.app.runtime.accounts.caller(
                sessionToken: token, installationId: context.caller.installationId, requestId: context.caller.requestId)
            context.caller.isMaster = isMaster
            context.parse.sessionToken = token
        }
        return try await next(request, context)
    }
}
