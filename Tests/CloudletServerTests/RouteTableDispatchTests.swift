import Cloudlet
import CloudletTesting
import HTTPTypes
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer
import CloudletServerTesting

/// `POST /batch`, the metrics labels and the rate-limit rules all find a route through the one
/// route table the router serves.
@Suite("The route table is the dispatch")
struct RouteTableDispatchTests {
    @Test("a batch reaches every batchable route of the table, and only those")
    func batchReachesEveryBatchableRoute() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let routes = ParseAPI.routes.filter { $0.path != ParseRoute.batchPath }
            // In batches of at most 50 operations, the bound of one batch.
            for start in stride(from: 0, to: routes.count, by: 50) {
                let some = routes[start..<min(start + 50, routes.count)]
                let requests: [ParseValue] = some.map { route in
                    ["method": .string(route.method.rawValue), "path": .string("/parse" + ParseRouteTableTests.samplePath(route.path))]
                }
                let reply = try await client.post("/batch", ["requests": .array(requests)], master: true)
                #expect(reply.status == 200)
                let entries = try #require(reply.body.arrayValue)
                #expect(entries.count == some.count)
                for (route, entry) in zip(some, entries) {
                    let message = entry["error"]?["error"]?.stringValue ?? ""
                    // A route reached answers its own outcome: a success, or its handler's error.
                    #expect(message.hasPrefix("cannot route") != route.isBatchable, "\(route.method) \(route.path): \(entry)")
                }
            }
        }
    }

    @Test("batch operations run the same handlers as their routes: sign-up, login, installations, functions")
    func batchRunsTheHandlers() async throws {
        var hooks = HookRegistry()
        hooks.function("hello") { request in .string("hi \(request.params["name"]?.stringValue ?? "")") }
        try await ParseTestClient.withRouter(registry: hooks) { client in
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/users", "body": ["username": "ann", "password": "pw"]],
                        ["method": "GET", "path": "/parse/login?username=ann&password=pw"],
                        ["method": "POST", "path": "/parse/installations", "body": ["installationId": "i-1", "deviceType": "android"]],
                        ["method": "POST", "path": "/parse/functions/hello", "body": ["name": "ben"]],
                    ]
                ])
            let entries = try #require(reply.body.arrayValue)
            #expect(entries[0]["success"]?["sessionToken"]?.stringValue != nil, "\(entries[0])")
            #expect(entries[1]["success"]?["username"] == "ann", "\(entries[1])")
            #expect(entries[2]["success"]?["objectId"]?.stringValue != nil, "\(entries[2])")
            #expect(entries[3]["success"]?["result"] == "hi ben", "\(entries[3])")
            #expect(try await Support.masterCount(client, "_Installation") == 1)
        }
    }

    @Test("an operation the table cannot route answers Parse's 107, and nothing else runs for it")
    func unroutableOperations() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/nowhere", "body": ["title": "x"]],
                        ["method": "PATCH", "path": "/parse/classes/Posts", "body": ["title": "x"]],
                        ["method": "POST", "path": "/parse/batch", "body": ["requests": []]],
                        ["method": "POST", "path": "classes/Posts", "body": ["title": "x"]],
                        ["method": "GET", "path": "/parse/files/test/a.txt"],
                    ]
                ], master: true)
            let entries = try #require(reply.body.arrayValue)
            let errors = entries.map { $0["error"] }
            #expect(errors[0] == ["code": 107, "error": "cannot route POST /nowhere"])
            #expect(errors[1] == ["code": 107, "error": "cannot route PATCH /classes/Posts"])
            #expect(errors[2] == ["code": 107, "error": "nested batch requests are not allowed"])
            #expect(errors[3] == ["code": 107, "error": "cannot route batch path classes/Posts"])
            #expect(errors[4] == ["code": 107, "error": "cannot route GET /files/test/a.txt"])
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("every JSON path takes POST with the method it means in _method, as the JavaScript SDK sends each call")
    func methodOverrideReachesEveryJSONPath() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let signup = try await client.post("/users", ["username": "ann", "password": "pw"])
            let token = try #require(signup["sessionToken"]?.stringValue)
            let id = try #require(signup["objectId"]?.stringValue)
            for (method, path) in [("GET", "/users/me"), ("GET", "/users/\(id)"), ("PUT", "/users/\(id)")] {
                let body = #"{"_method":"\#(method)","_SessionToken":"\#(token)","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#
                let reply = try await Support.send(client, .post, path, text: body, headers: [.contentType: "text/plain"])
                #expect(reply.status == 200, "\(method) \(path): \(reply.body)")
            }
            let refused = #"{"_method":"PATCH","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#
            let patch = try await Support.send(client, .post, "/users/me", text: refused, headers: [.contentType: "text/plain"])
            Support.expectError(patch, status: 405, code: 119)
        }
    }

    @Test("a rate-limit rule on a route's path counts its batch operations as its requests")
    func rateLimitRulesMatchBatchOperationsByTheirRoutePath() async throws {
        let rule = RateLimitRule(requestPath: PathPattern("/installations")!, quota: .init(count: 2, window: .seconds(60)))
        try await RateLimitRouteTests.withApps(RateLimitPolicy(quota: nil, rules: [rule])) { a, _ in
            #expect(try await a.post("/installations", ["installationId": "i-1", "deviceType": "ios"]).status == 201)
            let reply = try await a.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/installations", "body": ["installationId": "i-2", "deviceType": "ios"]],
                        ["method": "POST", "path": "/parse/installations?x=1", "body": ["installationId": "i-3", "deviceType": "ios"]],
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["n": 1]],
                    ]
                ])
            let entries = try #require(reply.body.arrayValue)
            #expect(entries[0]["success"] != nil, "\(entries)")
            #expect(entries[1]["error"]?["code"] == 155, "\(entries)")
            #expect(entries[2]["success"] != nil, "\(entries)")
            Support.expectError(try await a.post("/installations", ["installationId": "i-4", "deviceType": "ios"]), status: 429, code: 155)
        }
    }

    @Test("the router's metrics label of every route is the table's label of its path")
    func metricsLabelsComeFromTheTable() async throws {
        let table = ParseRouteTable(routes: ParseAPI.routes, mountPath: "/parse")
        try await ObservedServer.with { server in
            for path in table.paths {
                let concrete = ParseRouteTableTests.samplePath(path.pattern)
                _ = try await server.a.request(.get, concrete)
                let label = path.kinds == [.urlOnly] ? path.label : try #require(table.label(ofRequestPath: "/parse" + concrete))
                #expect(label == path.label)
                let scrape = try await server.scrape()
                #expect(!scrape.series("cloudlet_http_requests_total", ["route": label]).isEmpty, "no requests labelled \(label)")
            }
        }
    }
}
