import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import HTTPTypes
import Hummingbird
import Synchronization
import Testing

/// `/metrics`, `/health` and `/ready` over the real router, with two apps.
@Suite struct MetricsTests {
    @Test func metricsNeedTheOperatorKeyAndNoAppsKeyOpensThem() async throws {
        try await ObservedServer.with { server in
            let masterKey = HTTPField.Name("X-Parse-Master-Key")!
            let appId = HTTPField.Name("X-Parse-Application-Id")!
            #expect(try await server.get("/metrics").status == 401)
            for (app, key) in [("a", "a-master"), ("b", "b-master"), ("a", "b-master")] {
                #expect(try await server.get("/metrics", headers: [appId: app, masterKey: key]).status == 401)
                #expect(try await server.get("/metrics", headers: [.authorization: "Bearer \(key)"]).status == 401)
            }
            #expect(try await server.get("/metrics", headers: [.authorization: "Bearer wrong"]).status == 401)
            let scraped = try await server.operatorGet("/metrics")
            #expect(scraped.status == 200)
            #expect(scraped.text.contains("cloudlet_app_ready"))
        }
    }

    @Test func requestsAreCountedByAppRouteAndStatus() async throws {
        try await ObservedServer.with { server in
            #expect(try await server.a.post("/classes/Posts", ["n": 1]).status == 201)
            #expect(try await server.a.post("/classes/Posts", ["n": 2]).status == 201)
            #expect(try await server.b.get("/classes/Posts/nope").status == 404)
            let scrape = try await server.scrape()
            let route = "/parse/classes/{className}"
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": route, "status": "201"]) == 2)
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "b", "route": "/parse/classes/{className}/{objectId}", "status": "404"]) == 1)
            #expect(scrape.series("cloudlet_http_requests_total", ["app": "b", "route": route]).isEmpty)
            #expect(scrape.value("cloudlet_http_request_duration_seconds_count", ["app": "a", "route": route]) == 2)
            #expect(scrape.value("cloudlet_http_request_duration_seconds_bucket", ["app": "a", "route": route, "le": "+Inf"]) == 2)
        }
    }

    @Test func hookOutcomesAndDurationsAreCountedPerHook() async throws {
        try await ObservedServer.with { server in
            #expect(try await server.a.post("/functions/ok").status == 200)
            #expect(try await server.a.post("/functions/ok").status == 200)
            #expect(try await server.a.post("/functions/fail").status == 400)
            #expect(try await server.a.post("/functions/stuck").status == 504)
            #expect(try await server.a.post("/functions/unknown").status == 400)
            let scrape = try await server.scrape()
            let invocations = "cloudlet_hook_invocations_total"
            #expect(scrape.value(invocations, ["app": "a", "hook": "function:ok", "outcome": "ok"]) == 2)
            #expect(scrape.value(invocations, ["app": "a", "hook": "function:fail", "outcome": "error"]) == 1)
            #expect(scrape.value(invocations, ["app": "a", "hook": "function:stuck", "outcome": "timeout"]) == 1)
            #expect(scrape.series(invocations, ["hook": "function:unknown"]).isEmpty, "only registered hooks are labels")
            let stuck = try #require(scrape.value("cloudlet_hook_duration_seconds_sum", ["app": "a", "hook": "function:stuck"]))
            #expect(stuck >= 0.05 && stuck < 1)
            #expect(scrape.value("cloudlet_hook_duration_seconds_count", ["app": "a", "hook": "function:ok"]) == 2)
        }
    }

    @Test func labelsStayBoundedWhateverClientsSend() async throws {
        try await ObservedServer.with { server in
            for index in 0..<1000 {
                #expect(try await server.a.get("/classes/Class\(index)").status == 200)
            }
            let appId = HTTPField.Name("X-Parse-Application-Id")!
            for index in 0..<20 {
                #expect(try await server.get("/parse/classes/Posts", headers: [appId: "app\(index)"]).status == 403)
                #expect(try await server.get("/no/such/path/\(index)").status == 404)
            }
            let scrape = try await server.scrape()
            let requests = scrape.series("cloudlet_http_requests_total")
            #expect(Set(requests.map { $0.labels["route"] ?? "" }).count <= 3, "\(requests.map(\.labels))")
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": "/parse/classes/{className}", "status": "200"]) == 1000)
            #expect(Set(requests.map { $0.labels["app"] ?? "" }) == ["a", ""])
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "", "route": "NotFound", "status": "404"]) == 20)
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "", "route": "/parse/classes/{className}", "status": "403"]) == 20)
        }
    }

    @Test func aRateLimitRefusalIsCountedForItsApp() async throws {
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: RateLimitQuota(count: 1, window: .seconds(60))), clock: ManualClock())
        try await ObservedServer.with(extraRoutes: { router in
            router.get("limited") { _, _ in
                try await limiter.admit(RateLimitedRequest(path: "/limited", method: "GET", address: nil), .all)
                return "admitted"
            }
        }) { server in
            let appId = HTTPField.Name("X-Parse-Application-Id")!
            #expect(try await server.get("/limited", headers: [appId: "a"]).status == 200)
            #expect(try await server.get("/limited", headers: [appId: "a"]).status == 429)
            let scrape = try await server.scrape()
            #expect(scrape.value("cloudlet_rate_limited_total", ["app": "a"]) == 1)
            #expect(scrape.value("cloudlet_rate_limited_total", ["app": "b"]) == 0)
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": "/limited", "status": "429"]) == 1)
        }
    }

    @Test func readyWaitsForEveryAppsWorkersAndHealthNeedsNoKey() async throws {
        let executor = SwitchableExecutor()
        try await ObservedServer.with(executorOfB: executor) { server in
            #expect(try await server.get("/health").status == 200)
            let notReady = try await server.get("/ready")
            #expect(notReady.status == 503)
            #expect(try JSONParser.parse(notReady.text)["notReady"] == ["b"])
            #expect(try await server.scrape().value("cloudlet_app_ready", ["app": "b"]) == 0)
            executor.ready.withLock { $0 = true }
            #expect(try await server.get("/ready").status == 200)
            let scrape = try await server.scrape()
            #expect(scrape.value("cloudlet_app_ready", ["app": "b"]) == 1)
            #expect(scrape.value("cloudlet_hook_queue_depth", ["app": "b"]) == 3)
        }
    }
}

/// An executor with no hooks whose readiness a test switches, and with three calls queued.
private final class SwitchableExecutor: HookExecutor {
    let ready = Mutex(false)

    var isReady: Bool { ready.withLock { $0 } }
    var queuedInvocations: Int { 3 }

    var hooks: [HookRegistry.Summary] { [] }
    func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? { nil }
    func run(_ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload?, context: HookContext) async throws -> ParseValue {
        nil
    }
}
