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

/// An in-process server hosting apps `a` (hooks `ok`, `fail`, `stuck`, `chatty` and a `beforeSave`
/// on `Noted`) and `b` (no hooks), with the operator key ``operatorKey``, driven through the real router.
struct ObservedServer: Sendable {
    static let operatorKey = "operator-secret"

    let server: CloudletApplication
    let a: ParseTestClient
    let b: ParseTestClient
    private let client: any TestClientProtocol

    /// The hooks of app `a`.
    static var hooksOfA: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("ok") { _ in "fine" }
        hooks.function("fail") { _ in throw HookError.validation("no") }
        hooks.function("stuck", timeLimit: .milliseconds(50)) { _ in
            try await Task.sleep(for: .seconds(5))
            return nil
        }
        hooks.function("chatty") { request in
            for index in 0..<(request.params["lines"]?.intValue ?? 1) { request.logger.info("line \(index)", metadata: ["index": "\(index)"]) }
            return "said"
        }
        hooks.beforeSave("Noted") { request in request.logger.info("saving") }
        return hooks
    }

    /// Runs `body` with a server whose app `b` runs on `executorOfB`, whose router has
    /// `extraRoutes` added after Cloudlet's own, and whose apps keep their data on `store`.
    static func with(
        executorOfB: any HookExecutor = InProcessHookExecutor(registry: HookRegistry()),
        extraRoutes: @Sendable (Router<CloudletRequestContext>) -> Void = { _ in }, store: TestStore = .sqlite,
        _ body: @Sendable (ObservedServer) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-observed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let configuration = ServerConfiguration(dataDirectory: folder.path, operatorKey: OperatorKey(operatorKey))
        try await store.configuring(configuration) { configuration in
            let server = try await CloudletApplication(
                configuration: configuration,
                apps: [
                    AppDefinition(id: "a", executor: InProcessHookExecutor(registry: hooksOfA), clientKey: "a-client", masterKey: "a-master"),
                    AppDefinition(id: "b", executor: executorOfB, clientKey: "b-client", masterKey: "b-master"),
                ],
                logger: logger)
            defer { server.closeDatabase() }
            let router = server.router()
            extraRoutes(router)
            try await Application(router: router, logger: logger).test(.router) { client in
                func parse(_ app: String) -> ParseTestClient {
                    ParseTestClient(appId: app, clientKey: "\(app)-client", masterKey: "\(app)-master") { method, uri, headers, requestBody in
                        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                        return (response.status.code, response.headers, response.body)
                    }
                }
                try await body(ObservedServer(server: server, a: parse("a"), b: parse("b"), client: client))
            }
        }
    }

    /// `GET path` (from the root) with `headers`: status and body text.
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> (status: Int, text: String) {
        let response = try await client.executeRequest(uri: path, method: .get, headers: headers, body: nil)
        return (response.status.code, String(buffer: response.body))
    }

    /// `GET path` with the operator key, as Prometheus sends it.
    func operatorGet(_ path: String) async throws -> (status: Int, text: String) {
        try await get(path, headers: [.authorization: "Bearer \(Self.operatorKey)"])
    }

    /// The samples `/metrics` answers now.
    func scrape() async throws -> Scrape {
        let reply = try await operatorGet("/metrics")
        guard reply.status == 200 else { throw ScrapeFailure(status: reply.status, text: reply.text) }
        return Scrape(reply.text)
    }

    struct ScrapeFailure: Error {
        let status: Int
        let text: String
    }
}

/// The samples of a Prometheus text exposition: `name{label="value",…} number` lines.
struct Scrape: Sendable {
    struct Sample: Sendable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    let samples: [Sample]

    init(_ text: String) {
        samples = text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let match = line.wholeMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/) else { return nil }
            var labels: [String: String] = [:]
            for pair in (match.2 ?? "").matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/) {
                labels[String(pair.1)] = String(pair.2)
            }
            return Sample(name: String(match.1), labels: labels, value: Double(match.3) ?? .nan)
        }
    }

    /// The value of the sample `name` whose labels include `labels`, if there is exactly one.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = series(name, labels)
        return matching.count == 1 ? matching[0].value : nil
    }

    /// Every sample `name` whose labels include `labels`.
    func series(_ name: String, _ labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
    }
}
