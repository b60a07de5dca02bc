import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// A server of two apps, `a` and `b`, driven in-process through the real router, for the file suites.
struct FileTestServer: Sendable {
    let server: CloudletApplication
    /// The data folder.
    let folder: URL
    let a: ParseTestClient
    let b: ParseTestClient
    /// A client of the server's root, for `/ready`.
    let root: ParseTestClient
    /// The port of a live server (``with(policy:hooks:live:_:)`` with `live`), else nil.
    let port: Int?

    /// Runs `body` with a fresh server whose apps have `policy` as their rate limits and `hooks`:
    /// in-process through the router, or `live` on a loopback port; `adjust` changes the server's
    /// configuration, and `prepare` the data folder before the server opens it; the apps' data
    /// (files' bytes included) is on `store`.
    static func with(
        policy: RateLimitPolicy = .off, hooks: HookRegistry = HookRegistry(), live: Bool = false,
        adjust: (inout ServerConfiguration) -> Void = { _ in }, prepare: (URL) throws -> Void = { _ in }, store: TestStore = .sqlite,
        _ body: @Sendable (FileTestServer) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let definitions = ["a", "b"].map { id in
            AppDefinition(
                id: id, executor: InProcessHookExecutor(registry: hooks), clientKey: "client-\(id)", masterKey: "master-\(id)",
                rateLimits: policy)
        }
        var configuration = ServerConfiguration(dataDirectory: folder.path, passwordHashCost: 4)
        adjust(&configuration)
        try prepare(folder)
        try await store.configuring(configuration) { configuration in
            let server = try await CloudletApplication(configuration: configuration, apps: definitions, logger: logger)
            defer { server.closeDatabase() }
            try await Application(router: server.router(), logger: logger).test(live ? .live : .router) { client in
                let transport: ParseTestClient.Transport = { method, uri, headers, requestBody in
                    let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                    return (response.status.code, response.headers, response.body)
                }
                let clients = ["a", "b"].map { ParseTestClient(appId: $0, clientKey: "client-\($0)", masterKey: "master-\($0)", transport: transport) }
                let root = ParseTestClient(appId: "", clientKey: "", masterKey: "", mountPath: "", transport: transport)
                try await body(FileTestServer(server: server, folder: folder, a: clients[0], b: clients[1], root: root, port: client.port))
            }
        }
    }

    /// App `id`'s files as the server stores them: in the data folder, or in the PostgreSQL database.
    func files(_ id: String = "a") throws -> any FileStorage {
        try #require(server.apps.app(id)?.runtime.context.fileStorage)
    }

    /// Changes app `id`'s file settings in the registry and applies them, as `cloudlet apps update` does.
    func setFiles(_ id: String, _ files: FileSettings) async throws {
        try await server.registry.update(id) { $0.files = files }
        await server.supervisor.reload()
    }

    /// `bytes` uploaded to app `a` as `name`: the reply's stored name and URL.
    func upload(_ name: String, _ bytes: [UInt8], contentType: String = "application/octet-stream") async throws -> (name: String, url: String) {
        let reply = try await a.upload(name, bytes, contentType: contentType)
        guard reply.status == 201, let stored = reply["name"]?.stringValue, let url = reply["url"]?.stringValue else {
            throw ParseError.failed("upload of \(name) answered \(reply.status) \(reply.body)")
        }
        return (stored, url)
    }
}
