import CloudletRuntime
import Hummingbird
import Logging
import NIOCore

/// The request context of Cloudlet's router: Hummingbird's core context, the peer's address, and
/// what the Parse middleware learn about the request on its way to the route.
public struct CloudletRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address of the peer that sent the request.
    public let remoteAddress: SocketAddress?
    /// The server's address the request came in on.
    public let localAddress: SocketAddress?
    /// The request's id (Hummingbird's, as its logger carries it), read once: ``id`` formats it
    /// again on every read.
    public let requestId: String
    /// The body and limits of a Parse request, filled in by the middleware.
    public var parse = ParseRequestState()
    /// The app a Parse request is for, once ``AppMiddleware`` found it.
    var app: HostedApp?
    /// Who makes a Parse request, once ``KeyMiddleware`` (or ``URLCallerMiddleware``) knows.
    var caller: Caller?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        localAddress = source.channel.localAddress
        requestId = source.logger[metadataKey: "hb.request.id"]?.description ?? ""
    }
}
