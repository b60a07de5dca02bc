import Cloudlet
import Hummingbird

/// Finds the client's address and the app a request is for: from `X-Parse-Application-Id` or, as
/// the JavaScript SDK sends it, `_ApplicationId` in the body (which is then read here, as one of
/// the host's ``UnauthenticatedBodyReads``); or, for a file's URL, from the path. An unknown app
/// is refused with 403/119 before anything else happens.
struct AppMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext

    /// Where the app id is.
    enum Source: Sendable {
        /// The header, else the body's `_ApplicationId`, reading at most `maximumBodyBytes` of
        /// body (and at most the bound of `reads`) in one of the slots of `reads`.
        case headerOrBody(UnauthenticatedBodyReads, maximumBodyBytes: Int)
        /// The path parameter of this name (`id` in `/files/:id/:name`).
        case path(String)
    }

    let apps: AppDirectory
    let trustedProxies: TrustedProxies
    let source: Source

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        context.parse.headers = ParseRequestHeaders(request.headers)
        context.parse.address = trustedProxies.clientAddress(peer: context.remoteAddress?.ipAddress, forwardedFor: context.parse.headers.forwardedFor)
        let appId: String?
        switch source {
        case .headerOrBody(let reads, let maximumBodyBytes):
            if let header = context.parse.headers.applicationId {
                appId = header
            } else {
                try await reads.read(&request, into: &context.parse, maximumBytes: maximumBodyBytes)
                appId = context.parse.transport.applicationId
            }
        case .path(let parameter):
            appId = context.parameters.get(parameter)
        }
        guard let appId, let app = apps.app(appId) else {
            if let appId, apps.isNotRunning(appId) {
                throw ParseError(code: 1, message: "application \(appId) is not running: the server could not start it", httpStatus: 503)
            }
            throw ParseError(code: 119, message: "unauthorized: unknown application id", httpStatus: 403)
        }
        context.app = app
        return try await next(request, context)
    }
}
