import Cloudlet
import CloudletRuntime
import Hummingbird
import NIOCore

/// The context of a Parse route once its app and caller are known: the router passes every Parse
/// route's request from ``CloudletRequestContext`` to this context after ``KeyMiddleware`` (or
/// ``URLCallerMiddleware``), so the middleware after it and the route read an app and a caller
/// that are always there.
struct ParseRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The address of the peer that sent the request.
    let remoteAddress: SocketAddress?
    /// The app the request is for.
    let app: HostedApp
    /// Who makes the request; ``SessionMiddleware`` fills in its user.
    var caller: Caller
    /// The body, method, session token and rate limits, as the middleware learn them.
    var parse: ParseRequestState

    /// The context of `context`'s request; a 500 if the middleware that find the app and the
    /// caller did not run before (a router built wrong, never a client's doing).
    init(context: CloudletRequestContext) throws {
        guard let app = context.app, let caller = context.caller else { throw ParseError.internalError }
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        self.app = app
        self.caller = caller
        parse = context.parse
    }
}
