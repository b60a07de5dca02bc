import Cloudlet
import CloudletRuntime
import CloudletServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// Speaks the Parse REST API to a Cloudlet: in-process through the real router
/// (``withRouter(_:clientKey:masterKey:_:)``), or over any transport that sends an HTTP request.
///
/// ```swift
/// try await ParseTestClient.withRouter(AppHooks.self) { client in
///     let created = try await client.post("/classes/Posts", ["title": "Hi"])
///     #expect(created.status == 201)
/// }
/// ```
public struct ParseTestClient: Sendable {
    /// A reply: HTTP status, headers and the parsed JSON body (`null` when the body is empty).
    public struct Reply: Sendable {
        public let status: Int
        public let headers: HTTPFields
        public let body: ParseValue

        /// The member `key` of an object body.
        public subscript(key: String) -> ParseValue? { body[key] }
    }

    /// Sends one request: method, URI, headers and body, and answers status, headers and body bytes.
    public typealias Transport = @Sendable (HTTPRequest.Method, String, HTTPFields, ByteBuffer?) async throws -> (Int, HTTPFields, ByteBuffer)

    /// The app id sent as `X-Parse-Application-Id`.
    public let appId: String
    /// The client key sent with non-master calls.
    public let clientKey: String
    /// The master key sent with master calls.
    public let masterKey: String
    /// The mount path prefixed to every path.
    public let mountPath: String
    let transport: Transport
    /// The port of the server the client speaks to, when it listens on one
    /// (``withListeningServer(_:configuration:liveQueryClasses:_:)``); nil in-process.
    public internal(set) var port: Int?

    public init(appId: String, clientKey: String, masterKey: String, mountPath: String = "/parse", transport: @escaping Transport) {
        self.appId = appId
        self.clientKey = clientKey
        self.masterKey = masterKey
        self.mountPath = mountPath
        self.transport = transport
    }

    /// Runs `body` with a client of a server hosting `module` as app `test`, driven in-process
    /// through the real router (no socket), over a throwaway data folder. Unless `configuration`
    /// says otherwise, passwords are hashed at bcrypt's lowest cost (``ServerConfiguration/testing``).
    public static func withRouter<Module: HookModule, Value: Sendable>(
        _ module: Module.Type, configuration: ServerConfiguration = .testing,
        _ body: @Sendable (ParseTestClient) async throws -> Value
    ) async throws -> Value {
        try await withRouter(registry: Module.registry(), configuration: configuration, body)
    }

    /// Like ``withRouter(_:configuration:_:)``, for the hooks in `registry`.
    public static func withRouter<Value: Sendable>(
        registry: HookRegistry, configuration: ServerConfiguration = .testing,
        _ body: @Sendable (ParseTestClient) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        return try await withRouter(registry: registry, configuration: configuration, logger: logger, deliversPushes: false) { client, _ in
            try await body(client)
        }
    }

    /// Like ``withRouter(registry:configuration:_:)``, with the server too: its registry and
    /// supervisor (to change app `test`'s settings as the admin API does), its apps and their stores.
    public static func withServer<Value: Sendable>(
        registry: HookRegistry, configuration: ServerConfiguration = .testing,
        _ body: @Sendable (ParseTestClient, CloudletApplication) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        return try await withRouter(registry: registry, configuration: configuration, logger: logger, deliversPushes: false, body)
    }

    /// Runs `body` with a client of a server hosting `module` as app `test` on a free loopback port
    /// (given to `body`), with every channel handler `serve` has, LiveQuery's WebSockets among them,
    /// over a throwaway data folder; app `test` publishes the LiveQuery events of `liveQueryClasses`.
    /// Connect a ``LiveQuerySocket`` to the port to watch what a subscriber receives.
    public static func withListeningServer<Module: HookModule, Value: Sendable>(
        _ module: Module.Type, configuration: ServerConfiguration = .testing, liveQueryClasses: [String] = [],
        _ body: @Sendable (ParseTestClient, _ port: Int) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        return try await withRouter(
            registry: Module.registry(), configuration: configuration, logger: logger, deliversPushes: false, listening: true
        ) { client, server in
            if !liveQueryClasses.isEmpty {
                _ = try await server.registry.update("test") {
                    $0 = try $0.applying(["liveQuery": ["classNames": .array(liveQueryClasses.map(ParseValue.string))]])
                }
                let refused = await server.supervisor.reload()
                guard refused.isEmpty else { throw ParseError(code: 1, message: "the LiveQuery classes were refused: \(refused)") }
            }
            return try await body(client, client.port ?? 0)
        }
    }

    /// Serves `registry` as app `test` through the router over a throwaway data folder, logging to
    /// `logger`, with the server's work service (after hooks, job runs) beside it until `body`
    /// ends; with `deliversPushes`, it delivers push too. With `listening`, the whole application
    /// listens on a free loopback port (the client's ``port``) rather than being driven in-process.
    static func withRouter<Value: Sendable>(
        registry: HookRegistry, configuration: ServerConfiguration, logger: Logger, deliversPushes: Bool, listening: Bool = false,
        _ body: @Sendable (ParseTestClient, CloudletApplication) async throws -> Value
    ) async throws -> Value {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-router-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = configuration
        configuration.dataDirectory = folder.path
        let server = try await CloudletApplication(
            configuration: configuration,
            apps: [AppDefinition(id: "test", executor: InProcessHookExecutor(registry: registry), clientKey: "client-key", masterKey: "master-key")],
            logger: logger)
        var settings = WorkSettings()
        if !deliversPushes { settings.kinds.remove(.pushDelivery) }
        let work = WorkService(apps: server.apps, settings: settings, push: configuration.pushDelivery)
        let workTask = Task { await work.run() }
        let mountPath = configuration.mountPath
        @Sendable func run(_ client: any TestClientProtocol) async throws -> Value {
            var parse = ParseTestClient(appId: "test", clientKey: "client-key", masterKey: "master-key", mountPath: mountPath) {
                method, uri, headers, requestBody in
                let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                return (response.status.code, response.headers, response.body)
            }
            parse.port = client.port
            return try await body(parse, server)
        }
        let result: Result<Value, any Error>
        do {
            if listening {
                result = .success(try await server.application().test(.live, run))
            } else {
                result = .success(try await Application(router: server.router(), logger: logger).test(.router, run))
            }
        } catch {
            result = .failure(error)
        }
        workTask.cancel()
        await workTask.value
        server.closeDatabase()
        return try result.get()
    }

    /// Sends `method` to `path` (below the mount path) with a JSON body, as master or as a client.
    public func request(
        _ method: HTTPRequest.Method, _ path: String, body: ParseValue? = nil, master: Bool = false, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        headers[HTTPField.Name("X-Parse-Application-Id")!] = appId
        if master {
            headers[HTTPField.Name("X-Parse-Master-Key")!] = masterKey
        } else {
            headers[HTTPField.Name("X-Parse-REST-API-Key")!] = clientKey
        }
        headers[.contentType] = "application/json"
        let bytes = body.map { ByteBuffer(bytes: JSONWriter.bytes($0)) }
        return try await raw(method, path, headers: headers, body: bytes)
    }

    /// Sends exactly these headers and body bytes to `path` (below the mount path).
    public func raw(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> Reply {
        let (status, responseHeaders, buffer) = try await transport(method, mountPath + path, headers, body)
        let parsed = buffer.readableBytes == 0 ? ParseValue.null : try JSONParser.parse(Array(buffer.readableBytesView))
        return Reply(status: status, headers: responseHeaders, body: parsed)
    }

    /// `POST` with a JSON body; `sessionToken` acts as a logged-in user.
    public func post(_ path: String, _ body: [String: ParseValue] = [:], master: Bool = false, sessionToken: String? = nil) async throws -> Reply {
        try await request(.post, path, body: .object(body), master: master, headers: Self.session(sessionToken))
    }

    /// `PUT` with a JSON body; `sessionToken` acts as a logged-in user.
    public func put(_ path: String, _ body: [String: ParseValue], master: Bool = false, sessionToken: String? = nil) async throws -> Reply {
        try await request(.put, path, body: .object(body), master: master, headers: Self.session(sessionToken))
    }

    /// `GET`, with query parameters URL-encoded (structured ones as JSON, as the Parse SDKs send them);
    /// `sessionToken` acts as a logged-in user.
    public func get(_ path: String, query: [String: ParseValue] = [:], master: Bool = false, sessionToken: String? = nil) async throws -> Reply {
        try await request(.get, path + Self.queryString(query), master: master, headers: Self.session(sessionToken))
    }

    /// `DELETE`; `sessionToken` acts as a logged-in user.
    public func delete(_ path: String, master: Bool = false, sessionToken: String? = nil) async throws -> Reply {
        try await request(.delete, path, master: master, headers: Self.session(sessionToken))
    }

    private static func session(_ token: String?) -> HTTPFields {
        guard let token else { return [:] }
        return [HTTPField.Name("X-Parse-Session-Token")!: token]
    }

    static func queryString(_ query: [String: ParseValue]) -> String {
        guard !query.isEmpty else { return "" }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let pairs = query.keys.sorted().map { key -> String in
            let text = query[key]!.stringValue ?? JSONWriter.string(query[key]!)
            return key + "=" + (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
        }
        return "?" + pairs.joined(separator: "&")
    }
}

extension ServerConfiguration {
    /// The defaults, but for passwords hashed at bcrypt's cost 4 rather than 10: a sign-up or login
    /// in a test takes a millisecond rather than a tenth of a second, and hashes the same way.
    public static var testing: ServerConfiguration { ServerConfiguration(passwordHashCost: 4) }
}
