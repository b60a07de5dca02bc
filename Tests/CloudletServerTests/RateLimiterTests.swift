import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// The rate limiter on a manual clock: quotas, rules, zones, all-or-nothing charges and a bounded store.
@Suite("Rate limiter")
struct RateLimiterTests {
    static func request(
        _ path: String = "/classes/Posts", method: String = "GET", address: String? = "203.0.113.1", userId: String? = nil,
        isMaster: Bool = false, isInternal: Bool = false
    ) -> RateLimitedRequest {
        RateLimitedRequest(path: path, method: method, address: address, userId: userId, isMaster: isMaster, isInternal: isInternal)
    }

    /// How many of `count` requests, sent `spacing` apart, are admitted.
    static func admitted(_ limiter: RateLimiter, _ clock: ManualClock, count: Int, spacing: Duration, _ request: RateLimitedRequest = request())
        async -> Int
    {
        var admitted = 0
        for _ in 0..<count {
            if (try? await limiter.admit(request, .all)) != nil { admitted += 1 }
            clock.advance(by: spacing)
        }
        return admitted
    }

    @Test func quotasReadAsTheCommandLineWritesThem() throws {
        let standard = try #require(try RateLimitPolicy.quota(text: "40/s,burst=80"))
        #expect(standard.count == 80 && standard.ratePerSecond == 40)
        #expect(RateLimitPolicy.text(of: standard) == "40/s,burst=80")
        let perMinute = try #require(try RateLimitPolicy.quota(text: "600/min"))
        #expect(perMinute.count == 600 && abs(perMinute.ratePerSecond - 10) < 1e-9)
        #expect(try RateLimitPolicy.quota(text: "off") == nil)
        for bad in ["", "40", "x/s", "40/fortnight", "40/s,burst=0", "40/s,speed=3", "-1/s"] {
            #expect(throws: ParseError.self, "\(bad)") { try RateLimitPolicy.quota(text: bad) }
        }
    }

    @Test func pathPatternsMatchSegmentBySegment() throws {
        let functions = try #require(PathPattern("/functions/*"))
        #expect(functions.matches("/functions/hello"))
        #expect(functions.matches("/functions"))
        #expect(!functions.matches("/classes/functions"))
        let objects = try #require(PathPattern("/classes/:className"))
        #expect(objects.matches("/classes/Posts"))
        #expect(!objects.matches("/classes/Posts/abc"))
        #expect(!objects.matches("/classes"))
        #expect(PathPattern("/a/*/b") == nil)
        #expect(PathPattern(String(repeating: "/a", count: 300)) == nil)
    }

    @Test func theAppQuotaAdmitsItsBurstThenItsRate() async throws {
        let clock = ManualClock()
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: .init(perSecond: 40, burst: 80), addressShare: 1), clock: clock)
        // 200 at once: the burst gets through.
        #expect(await Self.admitted(limiter, clock, count: 200, spacing: .zero) == 80)
        // 4× the rate for 10 s: the rate gets through, within one request.
        let admitted = await Self.admitted(limiter, clock, count: 1600, spacing: .microseconds(6250))
        #expect(abs(admitted - 400) <= 1, "\(admitted)")
    }

    @Test func remainingCountsRightAtAnyTime() async throws {
        // Dates far from 2001 keep fewer digits after the point; the count must not slip by one.
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_000_000.123))
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: try RateLimitPolicy.quota(text: "5/s,burst=3"), addressShare: 1), clock: clock)
        let first = try await limiter.admit(Self.request(), .all)
        #expect(first.remaining == 2)
        #expect(first.headers[HTTPField.Name("RateLimit")!] == "\"app\";r=2;t=1")
    }

    @Test func aRefusalSaysWhenToComeBack() async throws {
        let clock = ManualClock()
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: .init(count: 2, window: .seconds(10)), addressShare: 1), clock: clock)
        let first = try await limiter.admit(Self.request(), .all)
        #expect(first.headers[HTTPField.Name("RateLimit-Policy")!] == "\"app\";q=2;w=10")
        #expect(first.headers[HTTPField.Name("RateLimit")!] == "\"app\";r=1;t=5")
        try await limiter.admit(Self.request(), .all)
        let refusal = await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(Self.request(), .all) }
        #expect(refusal?.headers[.retryAfter] == "5")
        #expect(refusal?.headers[HTTPField.Name("RateLimit")!] == "\"app\";r=0;t=10")
        clock.advance(by: .seconds(5))
        try await limiter.admit(Self.request(), .all)
    }

    @Test func rulesCountByTheirZone() async throws {
        let clock = ManualClock()
        let rule = { (zone: RateLimitZone) in
            RateLimitRule(
                requestPath: PathPattern("/functions/*")!, requestMethods: ["post"], quota: .init(count: 2, window: .seconds(60)),
                errorResponseMessage: "slow down", zone: zone)
        }
        for zone in RateLimitZone.allCases {
            let limiter = RateLimiter(policy: RateLimitPolicy(quota: nil, rules: [rule(zone)]), clock: clock)
            let ada = Self.request("/functions/hello", method: "POST", address: "198.51.100.1", userId: "ada")
            let bob = Self.request("/functions/hello", method: "POST", address: "198.51.100.2", userId: "bob")
            try await limiter.admit(ada, .all)
            try await limiter.admit(ada, .all)
            let refusal = await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(ada, .all) }
            #expect(refusal?.message == "slow down")
            // Another caller: refused only when the zone is global.
            if zone == .global {
                await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(bob, .all) }
            } else {
                try await limiter.admit(bob, .all)
            }
            // Not covered: another method, another path, the master key, a hook's own call.
            try await limiter.admit(Self.request("/functions/hello", method: "GET", address: "198.51.100.1", userId: "ada"), .all)
            try await limiter.admit(Self.request("/classes/X", method: "POST", address: "198.51.100.1", userId: "ada"), .all)
            try await limiter.admit(Self.request("/functions/hello", method: "POST", address: "198.51.100.1", isMaster: true), .all)
            try await limiter.admit(Self.request("/functions/hello", method: "POST", address: "198.51.100.1", isInternal: true), .all)
        }
    }

    @Test func theAppQuotaCountsTheMasterKeyButNotHooks() async throws {
        let clock = ManualClock()
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: .init(count: 1, window: .seconds(60)), addressShare: 1), clock: clock)
        try await limiter.admit(Self.request(isMaster: true), .all)
        await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(Self.request(isMaster: true), .all) }
        try await limiter.admit(Self.request(isInternal: true), .all)
    }

    @Test func aRefusedRequestCountsAgainstNoLimit() async throws {
        let clock = ManualClock()
        let login = RateLimitRule(requestPath: PathPattern("/login")!, quota: .init(count: 1, window: .seconds(60)))
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: .init(count: 3, window: .seconds(60)), addressShare: 1, rules: [login]), clock: clock)
        try await limiter.admit(Self.request("/login"), .all)
        for _ in 0..<5 { await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(Self.request("/login"), .all) } }
        // The app quota was charged once only: two more requests fit.
        try await limiter.admit(Self.request("/classes/X"), .all)
        try await limiter.admit(Self.request("/classes/X"), .all)
        await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(Self.request("/classes/X"), .all) }
    }

    /// A store that can wait only to charge, as one across the network would.
    struct ChargeOnlyStore: RateLimitStore {
        let inner = InMemoryRateLimitStore()
        func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState] { await inner.charge(charges, now: now) }
    }

    @Test func theStoreTellsWhereAKeyStandsWithoutChargingIt() async throws {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let store = InMemoryRateLimitStore()
        let charge = RateLimitCharge(key: "app", quota: .init(count: 2, window: .seconds(10)))
        #expect(await store.charge([charge], now: now).map(\.allowed) == [true])
        for _ in 0..<3 { #expect(store.stateNow(charge, now: now)?.allowed == true) }
        #expect(await store.charge([charge], now: now).map(\.allowed) == [true])
        let full = try #require(store.stateNow(charge, now: now))
        #expect(!full.allowed)
        #expect(full.retryAfter == 5)
        #expect(store.stateNow(charge, now: now.addingTimeInterval(5))?.allowed == true)
        #expect(ChargeOnlyStore().stateNow(charge, now: now) == nil)
    }

    @Test func theStoreStaysBoundedUnderAFloodOfAddresses() async throws {
        let clock = ManualClock()
        let store = InMemoryRateLimitStore(capacity: 1_000)
        let rule = RateLimitRule(requestPath: PathPattern("/*")!, quota: .init(count: 5, window: .seconds(60)))
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: nil, rules: [rule]), store: store, clock: clock)
        for index in 0..<50_000 { try await limiter.admit(Self.request(address: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)"), .all) }
        #expect(store.keyCount <= 1_000)
    }

    @Test func policiesRoundTripThroughJSON() throws {
        let json = try JSONParser.parse(
            Array(
                #"{"rate":"10/s,burst=20","rules":[{"requestPath":"/login","requestTimeWindow":60000,"requestCount":5,"zone":"user","requestMethods":["post"]}],"maxConcurrentHooks":4}"#
                    .utf8))
        let policy = try RateLimitPolicy(json: json)
        #expect(policy.quota == RateLimitQuota(perSecond: 10, burst: 20))
        #expect(policy.rules.first?.zone == .user && policy.rules.first?.requestMethods == ["POST"])
        #expect(policy.maximumConcurrentHooks == 4 && policy.maximumQueuedHooks == 256)
        #expect(try RateLimitPolicy(json: policy.json) == policy)
        for bad in [#"{"rate":5}"#, #"{"rules":[{"requestPath":"/x"}]}"#, #"{"speed":"1/s"}"#, #"{"rules":[{"requestPath":"/x","requestTimeWindow":1,"requestCount":1,"zone":"planet"}]}"#] {
            #expect(throws: ParseError.self, "\(bad)") { try RateLimitPolicy(json: try JSONParser.parse(Array(bad.utf8))) }
        }
    }
}
