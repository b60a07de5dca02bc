import CloudletWire
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves a module's hooks to a Cloudlet host from a worker process: speaks over the connected
/// Unix-domain socket the host handed it as standard input, announces the hooks, and runs each
/// invocation the host sends, many at once.
///
/// `cloudlet worker` (a hidden subcommand of every ``HookModule``'s command line) runs one; the
/// host's worker pool starts it, so hook authors never do.
/// ```swift
/// try await HookWorker(registry: AppHooks.registry()).run()
/// ```
public struct HookWorker: Sendable {
    private let registry: HookRegistry

    /// A worker for the hooks in `registry`, whose standard input is its host's socket.
    public init(registry: HookRegistry) {
        self.registry = registry
    }

    /// A worker's standard input that is not a socket: it was not started by a host.
    public struct NotStartedByAHost: Error, CustomStringConvertible {
        public var description: String { "a worker is started by a Cloudlet host, which hands it a socket as standard input" }
    }

    /// Serves until the host closes the connection; then ends the process at once, abandoning any
    /// hook still running (its caller has gone with the host).
    public func run() async throws -> Never {
        let descriptor = try Self.takeStandardInput()
        HostWatch.start(connection: descriptor)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try WireFraming.addHandlers(to: channel.pipeline.syncOperations) }
            }
            .withConnectedSocket(descriptor).get()
        let session = WorkerSession(registry: registry, clock: WorkerClock(eventLoop: channel.eventLoop), eventLoop: channel.eventLoop)
        let connection = try await channel.eventLoop.submit {
            var receiver = session.receiver
            receiver.closed = { exit(0) }
            return try WireConnection(channel: channel, receiver: receiver)
        }.get()
        session.start(on: connection)
        try await channel.closeFuture.get()
        exit(0)
    }

    /// Moves the host's socket off standard input, to a descriptor that no program the hooks start
    /// inherits, and puts `/dev/null` in its place: a hook that reads standard input reads nothing
    /// instead of the host's messages.
    private static func takeStandardInput() throws -> CInt {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK else { throw NotStartedByAHost() }
        let descriptor = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
        let null = open("/dev/null", O_RDONLY)
        guard descriptor >= 0, null >= 0, dup2(null, STDIN_FILENO) == STDIN_FILENO else { throw NotStartedByAHost() }
        close(null)
        return descriptor
    }
}
