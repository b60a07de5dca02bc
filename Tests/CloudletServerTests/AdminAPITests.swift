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

@Suite("Admin API: the operator key only, app registry changes in effect at once")
struct AdminAPITests {
    static let operatorKey = "operator-secret"
    static let operatorHeader = HTTPField.Name("X-Cloudlet-Operator-Key")!

    /// A server hosting apps `a` and `b` (keys `<app>-client`, `<app>-master`) whose operator key is
    /// ``operatorKey``, on `clock`, fetching identity token keys from `identityProviders`; apps created
    /// through the admin API run `hooks` in-process; the apps' data is on `store`. `body` gets an admin
    /// client (paths from `/`) and a Parse client maker.
    static func withServer(
        hooks: HookRegistry = HookRegistry(), connections: ConnectionLimits = ConnectionLimits(), clock: any CloudletClock = SystemClock(),
        identityProviders: IdentityProviderEndpoints = IdentityProviderEndpoints(), store: TestStore = .sqlite,
        _ body: @Sendable (_ admin: ParseTestClient, _ parse: @Sendable (String, String, String) -> ParseTestClient) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-admin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(dataDirectory: folder.path, passwordHashCost: 4, operatorKey: OperatorKey(operatorKey))
        configuration.connections = connections
        configuration.identityProviders = identityProviders
        try await store.configuring(configuration) { configuration in
            let server = try await CloudletApplication(
                configuration: configuration,
                apps: ["a", "b"].map {
                    AppDefinition(id: $0, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "\($0)-client", masterKey: "\($0)-master")
                },
                launcher: AppLauncher(ownHooks: hooks, logger: logger, hookLogger: logger), logger: logger, clock: clock)
            defer { server.closeDatabase() }
            try await Application(router: server.router(), logger: logger).test(.router) { client in
                let transport: ParseTestClient.Transport = { method, uri, headers, requestBody in
                    let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                    return (response.status.code, response.headers, response.body)
                }
                let admin = ParseTestClient(appId: "", clientKey: "", masterKey: "", mountPath: "", transport: transport)
                try await body(admin) { ParseTestClient(appId: $0, clientKey: $1, masterKey: $2, transport: transport) }
            }
        }
    }

    /// Sends `method path` with `body` and exactly the credential headers given (plus JSON content type).
    static func send(
        _ admin: ParseTestClient, _ method: HTTPRequest.Method, _ path: String, _ body: ParseValue? = nil, headers: HTTPFields = [:]
    ) async throws -> ParseTestClient.Reply {
        var headers = headers
        headers[.contentType] = "application/json"
        return try await admin.raw(method, path, headers: headers, body: body.map { ByteBuffer(bytes: JSONWriter.bytes($0)) })
    }

    static func asOperator(
        _ admin: ParseTestClient, _ method: HTTPRequest.Method, _ path: String, _ body: ParseValue? = nil
    ) async throws -> ParseTestClient.Reply {
        try await send(admin, method, path, body, headers: [operatorHeader: operatorKey])
    }

    @Test("every admin route refuses app keys (client or master, any app) and a missing or wrong operator key")
    func refusesEverythingButTheOperatorKey() async throws {
        try await Self.withServer { admin, parse in
            let routes: [(HTTPRequest.Method, String, ParseValue?)] = [
                (.get, "/admin/apps", nil), (.post, "/admin/apps", ["id": "stolen"]), (.get, "/admin/apps/b", nil),
                (.put, "/admin/apps/b", ["workers": 3]), (.delete, "/admin/apps/b", nil),
                (.post, "/admin/apps/b/keys/master/rotate", nil), (.post, "/admin/apps/b/keys/client/retire", nil),
            ]
            let appId = HTTPField.Name("X-Parse-Application-Id")!
            let master = HTTPField.Name("X-Parse-Master-Key")!
            let client = HTTPField.Name("X-Parse-REST-API-Key")!
            let credentials: [HTTPFields] = [
                [:], [Self.operatorHeader: "wrong"], [Self.operatorHeader: "a-master"], [Self.operatorHeader: "b-master"],
                [.authorization: "Bearer a-master"], [.authorization: "Bearer b-client"], [appId: "a", master: "a-master"],
                [appId: "b", master: "b-master"], [appId: "a", client: "a-client"], [Self.operatorHeader: ""],
            ]
            for (method, path, body) in routes {
                for headers in credentials {
                    let reply = try await Self.send(admin, method, path, body, headers: headers)
                    Support.expectError(reply, status: 401, code: 119)
                }
            }
            // Nothing changed: b keeps its keys and settings, and no app was created.
            let b = parse("b", "b-client", "b-master")
            #expect(try await b.get("/classes/Posts").status == 200)
            #expect(try await b.get("/classes/Posts", master: true).status == 200)
            let list = try await Self.asOperator(admin, .get, "/admin/apps")
            #expect(list["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "b"])
            #expect(list["results"]?.arrayValue?.last?["workers"] == 1)
        }
    }

    @Test("an app created through the admin API serves at once, rotates keys without downtime, and is refused once deleted")
    func createRotateRetireDelete() async throws {
        var hooks = HookRegistry()
        hooks.function("hello") { _ in "hi" }
        try await Self.withServer(hooks: hooks) { admin, parse in
            let created = try await Self.asOperator(
                admin, .post, "/admin/apps", ["id": "shop", "isolation": "in-process", "rateLimits": ["rate": "off"]])
            #expect(created.status == 201, "\(created.body)")
            let clientKey = try #require(created["clientKey"]?.stringValue)
            let masterKey = try #require(created["masterKey"]?.stringValue)
            let shop = parse("shop", clientKey, masterKey)
            #expect(try await shop.post("/functions/hello")["result"] == "hi")
            #expect(try await shop.get("/classes/Posts", master: true).status == 200)

            // The master key is shown once: reading the app back shows only its state.
            let shown = try await Self.asOperator(admin, .get, "/admin/apps/shop")
            #expect(!JSONWriter.string(shown.body).contains(masterKey))
            #expect(shown["clientKeys"]?.arrayValue?.first?["key"]?.stringValue == clientKey)

            let rotated = try await Self.asOperator(admin, .post, "/admin/apps/shop/keys/master/rotate")
            let newMaster = try #require(rotated["key"]?.stringValue)
            #expect(newMaster != masterKey)
            #expect(try await shop.get("/classes/Posts", master: true).status == 200, "the old key stays valid until retired")
            #expect(try await parse("shop", clientKey, newMaster).get("/classes/Posts", master: true).status == 200)

            #expect(try await Self.asOperator(admin, .post, "/admin/apps/shop/keys/master/retire")["retired"] == 1)
            Support.expectError(try await shop.get("/classes/Posts", master: true), status: 403, code: 119)
            #expect(try await parse("shop", clientKey, newMaster).get("/classes/Posts", master: true).status == 200)

            #expect(try await Self.asOperator(admin, .delete, "/admin/apps/shop").status == 200)
            Support.expectError(try await shop.get("/classes/Posts"), status: 403, code: 119)
            Support.expectError(try await Self.asOperator(admin, .get, "/admin/apps/shop"), status: 404, code: 101)
        }
    }

    @Test("a change that puts a hook over its app's cap is refused and the app keeps serving as before")
    func capBelowAHookIsRefused() async throws {
        var hooks = HookRegistry()
        hooks.function("slow", timeLimit: .seconds(10)) { _ in "done" }
        try await Self.withServer(hooks: hooks) { admin, parse in
            let created = try await Self.asOperator(admin, .post, "/admin/apps", ["id": "shop", "isolation": "in-process"])
            let shop = parse("shop", created["clientKey"]?.stringValue ?? "", created["masterKey"]?.stringValue ?? "")
            let refused = try await Self.asOperator(admin, .put, "/admin/apps/shop", ["maxHookTimeLimitMs": 2000])
            Support.expectError(refused, status: 400, code: 142)
            #expect(refused["error"]?.stringValue?.contains("function hook slow has a time limit of 10.0 seconds") == true, "\(refused.body)")
            #expect(try await Self.asOperator(admin, .get, "/admin/apps/shop")["maxHookTimeLimitMs"] == 60_000)
            #expect(try await shop.post("/functions/slow")["result"] == "done")

            let tooSmall = try await Self.asOperator(admin, .post, "/admin/apps", ["id": "tiny", "isolation": "in-process", "maxHookTimeLimitMs": 1000])
            Support.expectError(tooSmall, status: 400, code: 142)
            Support.expectError(try await Self.asOperator(admin, .get, "/admin/apps/tiny"), status: 404, code: 101)
        }
    }

    @Test("an app whose hooks name no executable file is refused at once, created or changed, and nothing is kept")
    func hooksThatCannotRunAreRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-admin-hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("not-executable").path
        #expect(FileManager.default.createFile(atPath: plain, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o644]))
        let cases = [
            (folder.appendingPathComponent("missing").path, "does not exist"), (plain, "is not an executable file"),
            (folder.path, "is not an executable file"), ("relative/hooks", "is not an absolute path"),
        ]
        try await Self.withServer { admin, _ in
            for (path, problem) in cases {
                let created = try await Self.asOperator(admin, .post, "/admin/apps", ["id": "shop", "hooks": .string(path)])
                Support.expectError(created, status: 400, code: 142)
                #expect(created["error"]?.stringValue?.contains("hooks: \(path) \(problem)") == true, "\(created.body)")
                Support.expectError(try await Self.asOperator(admin, .get, "/admin/apps/shop"), status: 404, code: 101)
                let changed = try await Self.asOperator(admin, .put, "/admin/apps/a", ["hooks": .string(path)])
                Support.expectError(changed, status: 400, code: 142)
                #expect(try await Self.asOperator(admin, .get, "/admin/apps/a")["hooks"] == "self")
            }
        }
    }

    @Test("a schedule for a job the app's hooks do not define is refused, created or changed, and nothing is kept")
    func schedulesNeedAJobOfTheApp() async throws {
        var hooks = HookRegistry()
        hooks.job("cleanup", timeLimit: .seconds(10)) { _ in }
        try await Self.withServer(hooks: hooks) { admin, _ in
            let refused = try await Self.asOperator(
                admin, .post, "/admin/apps", ["id": "shop", "isolation": "in-process", "jobSchedules": ["nosuch": "0 3 * * *"]])
            Support.expectError(refused, status: 400, code: 142)
            #expect(refused["error"] == #"app "shop" has no job nosuch: its hooks define no job of that name"#)
            Support.expectError(try await Self.asOperator(admin, .get, "/admin/apps/shop"), status: 404, code: 101)

            let created = try await Self.asOperator(
                admin, .post, "/admin/apps", ["id": "shop", "isolation": "in-process", "jobSchedules": ["cleanup": "0 3 * * *"]])
            #expect(created.status == 201, "\(created.body)")
            let changed = try await Self.asOperator(
                admin, .put, "/admin/apps/shop", ["jobSchedules": ["cleanup": "0 4 * * *", "nosuch": "0 3 * * *"]])
            Support.expectError(changed, status: 400, code: 142)
            #expect(try await Self.asOperator(admin, .get, "/admin/apps/shop")["jobSchedules"] == ["cleanup": "0 3 * * *"])
        }
    }

    @Test("requests are bounded: invalid ids, unknown members, out-of-range values and large bodies are refused")
    func boundedRequests() async throws {
        try await Self.withServer { admin, _ in
            Support.expectError(try await Self.asOperator(admin, .post, "/admin/apps", ["id": "no spaces"]), status: 400, code: 142)
            Support.expectError(try await Self.asOperator(admin, .post, "/admin/apps", ["id": "x", "colour": "red"]), status: 400, code: 142)
            Support.expectError(try await Self.asOperator(admin, .put, "/admin/apps/a", ["workers": 10_000]), status: 400, code: 142)
            Support.expectError(try await Self.asOperator(admin, .post, "/admin/apps/a/keys/root/rotate"), status: 400, code: 142)
            let huge = ParseValue.object(["id": .string(String(repeating: "x", count: 100_000))])
            Support.expectError(try await Self.asOperator(admin, .post, "/admin/apps", huge), status: 413, code: 116)
        }
    }
}
