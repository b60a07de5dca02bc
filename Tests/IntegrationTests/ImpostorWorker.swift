import CloudletWire
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A process that is not a worker, connecting to a server's worker socket and claiming to be one.
struct ImpostorWorker {
    /// The Unix-domain socket on which the server `pid` listens for the workers of `appId`: among
    /// the sockets the process holds (`/proc/<pid>/fd`), the one `/proc/net/unix` names so.
    static func workerSocket(ofServer pid: Int32, appId: String) throws -> String {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        let inodes = Set(
            descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
                .compactMap { $0.firstMatch(of: /socket:\[(\d+)\]/).map { String($0.1) } })
        let table = try String(contentsOfFile: "/proc/net/unix", encoding: .utf8)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, inodes.contains(String(fields[6])), fields[7].contains("cloudlet-\(appId)-") else { continue }
            return String(fields[7])
        }
        throw ServerProcess.Failure(description: "no worker socket of app \(appId) in process \(pid)")
    }

    /// Connects to `socketPath`, says hello as process `claimedProcessId` serving `hooks`, and
    /// answers whether the server closed the connection within `wait`; counts the invocations it got.
    static func claim(
        _ claimedProcessId: Int32, hooks: [WireHello.Hook], at socketPath: String, wait: Duration
    ) async throws -> (closed: Bool, invocations: Int) {
        let invocations = Mutex(0)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try WireFraming.addHandlers(to: channel.pipeline.syncOperations) }
            }
            .connect(unixDomainSocketPath: socketPath).get()
        let connection = try await channel.eventLoop.submit {
            try WireConnection(channel: channel) { message in
                if case .invoke = message { invocations.withLock { $0 += 1 } }
            }
        }.get()
        connection.send(.hello(WireHello(processId: claimedProcessId, hooks: hooks)))
        let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await channel.closeFuture.get(); return true }
            group.addTask { try await Task.sleep(for: wait); return false }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        connection.close()
        return (closed, invocations.withLock { $0 })
    }
}
