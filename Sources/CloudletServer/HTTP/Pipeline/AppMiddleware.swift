import Cloudlet
import Hummingbird

/// Finds the client's address and the app a request is for, from `X-Parse-Application-Id` or, as
/// the JavaScript SDK sends it, `_ApplicationId` in the body (which is then read here). An
/// unknown app is refused with 403/119 before anything else happens.
struct AppMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext
    let apps: AppDirectory
    let trustedProxies: TrustedProxies
    let maximumBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        context.parse.address = trustedProxies.clientAddress(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: ParseHeaders.forwardedFor])
        var appId = request.headers[ParseHeaders.applicationId]
        if appId == nil {
            try await BodyMiddleware.read(&request, into: &context.parse, maximumBytes: maximumBodyBytes)
            appId = context.parse.transport.applicationId
        }
        guard let appId, let app = apps.app(appId) else {
            throw ParseError(code: 119, message: "unauthorized: unknown application id", httpStatus: 403)
        }
        context.parse.app = app
        return try await next(request, context)
    }
}
