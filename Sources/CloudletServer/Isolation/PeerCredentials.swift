import CCloudletLandlock
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a Unix-domain socket, as the kernel saw it connect: the host matches
/// it against the workers it spawned, instead of trusting the pid a process claims in its hello.
enum PeerCredentials {
    /// The pid of the process that connected `channel` (`SO_PEERCRED`); nil where the system does not say.
    static func processId(of channel: any Channel) -> EventLoopFuture<Int32?> {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        return provider.unsafeGetSocketOption(level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
            .map { (credentials: cloudlet_peer_credentials) -> Int32? in credentials.pid }
        #else
        return channel.eventLoop.makeSucceededFuture(nil)
        #endif
    }
}
