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

/// Rate limits through the real router and its middleware, on a manual clock.
@Suite("Rate limits over the router")
struct RateLimitRouteTests {
    static let policyHeader = HTTPField.Name("RateLimit-Policy")!
    static let stateHeader = HTTPField.Name("RateLimit")!

    /// Runs `body` with a client of app `a` and one of app `b`, each with its own policy and hooks,
    /// their data on `store`.
    static func withApps(
        _ policyA: RateLimitPolicy, _ policyB: RateLimitPolicy = .off, hooks: HookRegistry = HookRegistry(),
        clock: ManualClock = ManualClock(), store: TestStore = .sqlite,
        _ body: @Sendable (ParseTestClient, ParseTestClient) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-limits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let definitions = [("a", policyA), ("b", policyB)].map { id, policy in
            AppDefinition(
                id: id, executor: InProcessHookExecutor(registry: hooks), clientKey: "client-\(id)", masterKey: "master-\(id)",
                rateLimits: policy)
        }
        try await store.configuring(ServerConfiguration(dataDirectory: folder.path, passwordHashCost: 4)) { configuration in
            let server = try await CloudletApplication(configuration: configuration, apps: definitions, logger: logger, clock: clock)
            defer { server.closeDatabase() }
            try await Application(router: server.router(), logger: logger).test(.router) { client in
                let clients = ["a", "b"].map { id in
                    ParseTestClient(appId: id, clientKey: "client-\(id)", masterKey: "master-\(id)") { method, uri, headers, requestBody in
                        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                        return (response.status.code, response.headers, response.body)
                    }
                }
                try await body(clients[0], clients[1])
            }
        }
    }

    @Test func overTheQuotaA429SaysWhenToComeBackAndTheOtherAppIsUntouched() async throws {
        let clock = ManualClock()
        try await Self.withApps(RateLimitPolicy(quota: .init(count: 3, window: .seconds(30))), clock: clock) { a, b in
            let first = try await a.get("/classes/Posts")
            #expect(first.status == 200)
            #expect(first.headers[Self.policyHeader] == "\"app\";q=3;w=30")
            #expect(first.headers[Self.stateHeader] == "\"app\";r=2;t=10")
            _ = try await a.get("/classes/Posts")
            _ = try await a.post("/classes/Posts", ["n": 1])
            let refused = try await a.get("/classes/Posts")
            Support.expectError(refused, status: 429, code: 155)
            #expect(refused.headers[.retryAfter] == "10")
            #expect(refused.headers[Self.stateHeader] == "\"app\";r=0;t=30")
            // The master key counts too: it is the tenant's own key.
            Support.expectError(try await a.get("/classes/Posts", master: true), status: 429, code: 155)
            for _ in 0..<20 { #expect(try await b.get("/classes/Posts").status == 200) }
            clock.advance(by: .seconds(10))
            #expect(try await a.get("/classes/Posts").status == 200)
        }
    }

    @Test func theQuotaIsChargedBeforeTheBodyIsRead() async throws {
        try await Self.withApps(RateLimitPolicy(quota: .init(count: 1, window: .seconds(60)))) { a, _ in
            _ = try await a.get("/classes/Posts")
            let malformed = try await Support.send(
                a, .post, "/classes/Posts", text: "{not json",
                headers: [Support.appIdHeader: "a", Support.restKeyHeader: "client-a"])
            Support.expectError(malformed, status: 429, code: 155)
        }
    }

    @Test func eachBatchOperationCountsAsARequest() async throws {
        try await Self.withApps(RateLimitPolicy(quota: .init(count: 5, window: .seconds(60)))) { a, _ in
            let requests: [ParseValue] = (0..<10).map { i in
                ["method": "POST", "path": "/parse/classes/Posts", "body": ["n": .number(Double(i))]]
            }
            let reply = try await a.post("/batch", ["requests": .array(requests)])
            #expect(reply.status == 200)
            let entries = try #require(reply.body.arrayValue)
            // The batch request itself took one of the five.
            #expect(entries.prefix(4).allSatisfy { $0["success"] != nil }, "\(entries)")
            #expect(entries.dropFirst(4).allSatisfy { $0["error"]?["code"] == 155 }, "\(entries)")
            Support.expectError(try await a.get("/classes/Posts"), status: 429, code: 155)
        }
    }

    @Test func aMethodOverrideCountsAsTheMethodItBecomes() async throws {
        let reads = RateLimitRule(
            requestPath: PathPattern("/classes/*")!, requestMethods: ["GET"], quota: .init(count: 2, window: .seconds(60)),
            errorResponseMessage: "too many reads")
        try await Self.withApps(RateLimitPolicy(quota: nil, rules: [reads])) { a, _ in
            let headers: HTTPFields = [Support.appIdHeader: "a", Support.restKeyHeader: "client-a"]
            for _ in 0..<2 {
                #expect(try await Support.send(a, .post, "/classes/Posts", text: #"{"_method":"GET"}"#, headers: headers).status == 200)
            }
            let refused = try await Support.send(a, .post, "/classes/Posts", text: #"{"_method":"GET"}"#, headers: headers)
            Support.expectError(refused, status: 429, code: 155)
            #expect(refused["error"] == "too many reads")
            // Writes are not reads.
            #expect(try await a.post("/classes/Posts", ["n": 1]).status == 201)
        }
    }

    @Test func theUserZoneCountsEachUserAndAnonymousCallersByAddress() async throws {
        let perUser = RateLimitRule(
            requestPath: PathPattern("/classes/:className")!, requestMethods: ["GET"], quota: .init(count: 2, window: .seconds(60)),
            zone: .user)
        try await Self.withApps(RateLimitPolicy(quota: nil, rules: [perUser])) { a, _ in
            var tokens: [String] = []
            for name in ["ann", "ben"] {
                let signup = try await a.post("/users", ["username": .string(name), "password": "pw"])
                tokens.append(try #require(signup["sessionToken"]?.stringValue))
            }
            for token in tokens {
                for _ in 0..<2 { #expect(try await a.get("/classes/Posts", sessionToken: token).status == 200) }
                Support.expectError(try await a.get("/classes/Posts", sessionToken: token), status: 429, code: 155)
            }
            for _ in 0..<2 { #expect(try await a.get("/classes/Posts").status == 200) }
            Support.expectError(try await a.get("/classes/Posts"), status: 429, code: 155)
        }
    }

    @Test func aHookDeclaresItsOwnLimit() async throws {
        var hooks = HookRegistry()
        hooks.function("authenticate", rateLimit: .perIP(2, per: .minute)) { _ in .string("ok") }
        try await Self.withApps(.off, hooks: hooks) { a, b in
            for _ in 0..<2 { #expect(try await a.post("/functions/authenticate").status == 200) }
            Support.expectError(try await a.post("/functions/authenticate"), status: 429, code: 155)
            let batch = try await a.post(
                "/batch", ["requests": [["method": "POST", "path": "/parse/functions/authenticate", "body": [:]]]])
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 155, "\(batch.body)")
            // Each app keeps its own count.
            #expect(try await b.post("/functions/authenticate").status == 200)
        }
    }
}
