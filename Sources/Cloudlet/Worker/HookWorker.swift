import CloudletWire
import Foundation
import NIOCore
import NIOPosix

/// Serves a module's hooks to a Cloudlet host from a worker process: connects to the host's
/// Unix-domain socket, announces the hooks, and runs each invocation the host sends, many at once.
///
/// `cloudlet worker --socket <path>` (a hidden subcommand of every ``HookModule``'s command line)
/// runs one; the host's worker pool starts it, so hook authors never do.
/// ```swift
/// try await HookWorker(registry: AppHooks.registry(), socketPath: path).run()
/// ```
public struct HookWorker: Sendable {
    private let registry: HookRegistry
    private let socketPath: String

    /// A worker for the hooks in `registry` that will connect to the host at `socketPath`.
    public init(registry: HookRegistry, socketPath: String) {
        self.registry = registry
        self.socketPath = socketPath
    }

    /// Connects and serves until the host closes the connection; then ends the process at once,
    /// abandoning any hook still running (its caller has gone with the host).
    public func run() async throws -> Never {
        HostWatch.start()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try WireFraming.addHandlers(to: channel.pipeline.syncOperations) }
            }
            .connect(unixDomainSocketPath: socketPath).get()
        let session = WorkerSession(registry: registry, clock: WorkerClock(eventLoop: channel.eventLoop))
        let connection = try await channel.eventLoop.submit {
            try WireConnection(channel: channel, onMessage: session.receive, onOversized: session.receiveOversized, onClose: { exit(0) })
        }.get()
        session.start(on: connection)
        try await channel.closeFuture.get()
        exit(0)
    }
}
