import Hummingbird
import NIOCore

/// The request context of Cloudlet's router: Hummingbird's core context plus the client's address,
/// which login throttling counts failures by.
public struct CloudletRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address of the peer that sent the request.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
