import Cloudlet
import CloudletServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The server side of the benchmark, run in a process of its own (`--serve <folder>`) so that its
/// memory is measured alone: a Cloudlet router serving app `bench` (no hooks, no rate limit), and
/// beside it the baseline, two bare routes on the same HTTP stack: `POST /bare/sink` reads and
/// drops the body, `GET /bare/source` answers 5 MiB from memory in 128 KiB chunks. The app takes
/// uploads of up to 4 GiB.
enum BenchmarkServer {
    static let appId = "bench"
    static let clientKey = "bench-client"
    static let masterKey = "bench-master"
    /// What `GET /bare/source` answers.
    static let sourceBytes = 5 << 20

    /// Serves on a free port of 127.0.0.1 until the process is killed, after printing `port <n>`.
    static func serve(folder: String) async throws {
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: folder)
        // Every client of the benchmark is on one address: requests are not paced by address.
        configuration.connections.requestsPerAddress = nil
        let server = try await CloudletApplication(
            configuration: configuration,
            apps: [
                AppDefinition(
                    id: appId, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: clientKey, masterKey: masterKey,
                    rateLimits: .off)
            ], logger: logger)
        // The large uploads are 100 MiB each: past the default limit of 20 MiB.
        try await server.registry.update(appId) { $0.files.maximumUploadBytes = FileSettings.largestMaximumUploadBytes }
        await server.supervisor.reload()
        let router = server.router()
        router.post("bare/sink") { request, _ -> HTTPResponse.Status in
            for try await _ in request.body {}
            return .ok
        }
        let chunk = ByteBuffer(repeating: 0x5A, count: 128 << 10)
        router.get("bare/source") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: sourceBytes) { writer in
                    for _ in 0..<(sourceBytes / chunk.readableBytes) { try await writer.write(chunk) }
                    try await writer.finish(nil)
                })
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(Data("port \(channel.localAddress?.port ?? 0)\n".utf8))
            }, logger: logger)
        try await application.runService()
    }
}
