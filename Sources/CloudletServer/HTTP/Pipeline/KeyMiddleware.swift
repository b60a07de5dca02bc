import Cloudlet
import CloudletRuntime
import Hummingbird

/// Checks the app's keys: the master key (no ACL applies) or a client key, from the headers or
/// the body's transport members (a body then read as one of the host's
/// ``UnauthenticatedBodyReads``); refuses a wrong or missing one with 403/119. A route whose body
/// streams (`maximumBodyBytes` nil) has its keys in the headers, or in a body read already.
struct KeyMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext
    let bodyReads: UnauthenticatedBodyReads
    let maximumBodyBytes: Int?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        guard let app = context.app else { throw ParseError.internalError }
        let headers = context.parse.headers
        var masterKey = headers.masterKey
        var clientKey = headers.clientKey
        if masterKey == nil, clientKey == nil {
            // Keys not in the headers: the JavaScript SDK's body form.
            if let maximumBodyBytes { try await bodyReads.read(&request, into: &context.parse, maximumBytes: maximumBodyBytes) }
            masterKey = context.parse.transport.masterKey
            clientKey = context.parse.transport.clientKey
        }
        let isMaster: Bool
        if let masterKey {
            guard app.keys.acceptsMasterKey(masterKey) else {
                throw ParseError(code: 119, message: "unauthorized: wrong master key", httpStatus: 403)
            }
            isMaster = true
        } else {
            guard let clientKey, app.keys.acceptsClientKey(clientKey) else {
                throw ParseError(code: 119, message: "unauthorized: missing or wrong client key", httpStatus: 403)
            }
            isMaster = false
        }
        context.caller = Caller(
            isMaster: isMaster, installationId: headers.installationId ?? context.parse.transport.installationId,
            requestId: context.requestId)
        return try await next(request, context)
    }
}
