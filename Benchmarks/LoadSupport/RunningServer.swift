import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// A server under test, running in this process on 127.0.0.1 with a port the system picked, on
/// data in a temporary folder of its own.
public struct RunningServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let services: ServiceGroup
    private let task: Task<Void, any Error>
    private let dataDirectory: URL

    /// Makes a fresh temporary folder, builds the application with `make` (given the folder's path
    /// and the callback that reports the port), runs it, and returns once it listens.
    public static func start<App: ApplicationProtocol>(
        _ make: (String, @escaping @Sendable (any Channel) async -> Void) async throws -> App
    ) async throws -> RunningServer {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cloudlet-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let (ports, reportPort) = AsyncStream.makeStream(of: Int.self)
        let app = try await make(dataDirectory.path) { channel in
            reportPort.yield(channel.localAddress?.port ?? 0)
        }
        let services = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
        let task = Task {
            defer { reportPort.finish() }
            try await services.run()
        }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            await services.triggerGracefulShutdown()
            try await task.value
            throw ServerDidNotStart()
        }
        return RunningServer(port: port, services: services, task: task, dataDirectory: dataDirectory)
    }

    /// Shuts the server down gracefully and deletes its data.
    public func stop() async throws {
        await services.triggerGracefulShutdown()
        try await task.value
        try FileManager.default.removeItem(at: dataDirectory)
    }

    /// The server stopped, or listened on no port, before reporting one.
    public struct ServerDidNotStart: Error {}
}
