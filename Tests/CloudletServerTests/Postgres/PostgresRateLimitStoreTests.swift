import CloudletRuntime
import Foundation
import PostgresNIO
import PostgresTestServer
import Synchronization
import Testing

@testable import CloudletPostgres

/// Rate limits shared by the nodes on one PostgreSQL: one quota across all of them, charges all or
/// nothing, apps and keys apart, and a node that cannot reach the database deciding alone with its
/// share. Time is the `now` each charge is given, never the wall clock.
@Suite struct PostgresRateLimitStoreTests {
    private let start = Date(timeIntervalSince1970: 1_795_000_000.123)
    /// 40 a second, 4 at once.
    private let quota = RateLimitQuota(perSecond: 40, burst: 4)

    /// A timeout no charge on a busy test machine reaches, where a test does not mean to reach it.
    private static let patient = Duration.seconds(30)

    private func store(_ database: CloudletPostgres.PostgresDatabase, _ schema: PostgresAppSchema, nodes: Int = 3, timeout: Duration = patient)
        async throws -> PostgresRateLimitStore
    {
        try await PostgresRateLimitStore(database, schema: schema, nodes: nodes, timeout: timeout)
    }

    private func allowed(_ store: some RateLimitStore, _ charges: [RateLimitCharge], at now: Date) async -> Bool {
        await store.charge(charges, now: now).allSatisfy(\.allowed)
    }

    @Test func threeNodesFloodingOneKeyAdmitItsRateInTotal() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { second in
                try await TemporaryPostgres.secondNode { third in
                    let stores = [try await store(database, schema), try await store(second, schema), try await store(third, schema)]
                    // 1,200 requests over 2 s (15 times the rate), four tasks on each node, in the order they take a number.
                    let total = 1200
                    let spacing = 2.0 / Double(total)
                    let numbers = Numbers()
                    let admitted = await withTaskGroup(of: Int.self) { group in
                        for node in stores {
                            for _ in 0..<4 {
                                group.addTask {
                                    var admitted = 0
                                    while true {
                                        let number = numbers.next()
                                        guard number < total else { return admitted }
                                        let now = start + Double(number) * spacing
                                        if await allowed(node, [RateLimitCharge(key: "app", quota: quota)], at: now) { admitted += 1 }
                                    }
                                }
                            }
                        }
                        return await group.reduce(0, +)
                    }
                    // The burst, then 40 a second for 2 s: 84, within 10%.
                    #expect(abs(admitted - 84) <= 8, "\(admitted) admitted")
                    #expect(stores.allSatisfy { !$0.isAlone(at: start + 2) }, "every node reached the database throughout")
                }
            }
        }
    }

    @Test func aChargeToSeveralKeysChargesNoneIfOneIsUsedUp() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let (first, second) = (try await store(database, schema), try await store(other, schema))
                let roomy = RateLimitCharge(key: "address|ip:203.0.113.1", quota: quota)
                let spent = RateLimitCharge(key: "rule1|/login|global", quota: RateLimitQuota(count: 1, window: .seconds(60)))
                #expect(await allowed(first, [spent], at: start))
                let states = await second.charge([roomy, spent], now: start)
                #expect(states.map(\.allowed) == [true, false], "the used-up key refuses on the other node too")
                #expect(states[1].retryAfter > 59 && states[1].retryAfter <= 60)
                let roomyAlone = await second.charge([roomy], now: start)
                #expect(roomyAlone.first?.remaining == 3, "the refused charge took nothing from the key with room")
            }
        }
    }

    @Test func keysAndAppsHaveQuotasOfTheirOwn() async throws {
        try await TemporaryPostgres.with { database, shop in
            let other = PostgresAppSchema(appId: shop.name + "-other")
            let shopStore = try await store(database, shop)
            let otherStore = try await store(database, other)
            let app = RateLimitCharge(key: "app", quota: quota)
            for _ in 0..<4 { #expect(await allowed(shopStore, [app], at: start)) }
            #expect(!(await allowed(shopStore, [app], at: start)), "the shop's quota is used up")
            #expect(await otherStore.charge([app], now: start).first?.remaining == 3, "the same key in another app is whole")
            #expect(await allowed(shopStore, [RateLimitCharge(key: "address|ip:203.0.113.1", quota: quota)], at: start), "another key is whole")
            try await database.execute("DROP SCHEMA \(other.quoted) CASCADE")
        }
    }

    @Test func aNodeThatCannotReachTheDatabaseAdmitsItsShareAlone() async throws {
        try await TemporaryPostgres.with { database, schema in
            let closing = try CloudletPostgres.PostgresDatabase(url: try await PostgresTestServer.shared.url, maximumConnections: 2)
            let node = try await store(closing, schema)
            let app = RateLimitCharge(key: "app", quota: RateLimitQuota(perSecond: 30, burst: 30))
            #expect(await node.charge([app], now: start).first?.remaining == 29, "shared while the database answers")
            closing.close()
            // Alone, with a third of the quota: 10 at once, then 10 a second.
            let burst = await (0..<30).asyncCount { _ in await allowed(node, [app], at: start) }
            #expect(burst == 10)
            #expect(node.isAlone(at: start))
            let later = await (0..<30).asyncCount { _ in await allowed(node, [app], at: start + 0.5) }
            #expect(later == 5, "half a second later, half the share has come back")
        }
    }

    @Test func aDatabaseThatDoesNotAnswerInTimeLeavesTheNodeAloneForASecond() async throws {
        try await TemporaryPostgres.with { database, schema in
            let node = try await store(database, schema, timeout: Duration.milliseconds(300))
            let app = RateLimitCharge(key: "app", quota: RateLimitQuota(count: 30, window: .seconds(60)))
            #expect(await allowed(node, [app], at: start))
            // Another node's transaction holds the key's row: the charge waits for it, and gives up.
            try await TemporaryPostgres.secondNode { other in
                try await other.transaction { connection in
                    try await connection.query("SELECT 1 FROM \(unescaped: schema.quoted).rate_limits WHERE key = 'app' FOR UPDATE", logger: other.logger)
                    let waited = ContinuousClock.now
                    #expect(await node.charge([app], now: start).first?.remaining == 9, "alone, the third of the quota")
                    #expect(ContinuousClock.now - waited < .seconds(10), "the charge gave up")
                    #expect(node.isAlone(at: start + 0.9) && !node.isAlone(at: start + 1))
                }
            }
            // A second later the shared row is used again: the charge made there, perhaps the one that
            // timed out (it ran on once the row was free), and this one.
            let back = try #require(await node.charge([app], now: start + 1).first)
            #expect(back.allowed && (27...28).contains(back.remaining), "\(back.remaining) left")
        }
    }

    @Test func rowsWhoseQuotaIsWholeAreSwept() async throws {
        try await TemporaryPostgres.with { database, schema in
            let node = try await store(database, schema)
            let quota = RateLimitQuota(count: 5, window: .seconds(10))
            for index in 0..<20 { _ = await node.charge([RateLimitCharge(key: "address|ip:198.51.100.\(index)", quota: quota)], now: start) }
            let rows = "SELECT count(*)::int FROM \(schema.quoted).rate_limits"
            #expect(try await database.count(rows) == 20)
            _ = await node.charge([RateLimitCharge(key: "app", quota: RateLimitQuota(count: 5, window: .seconds(600)))], now: start + 61)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await database.count(rows) > 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await database.count(rows) == 1, "only the row whose quota is not yet whole is left")
        }
    }

    @Test func aNodesShareIsItsRateAndBurstDivided() {
        let share = PostgresRateLimitStore.share(RateLimitQuota(perSecond: 40, burst: 80), of: 3)
        #expect(share.count == 26)
        #expect(abs(share.ratePerSecond - 40.0 / 3) < 0.01)
        #expect(PostgresRateLimitStore.share(RateLimitQuota(count: 2, window: .seconds(1)), of: 3).count == 1)
    }
}

extension CloudletPostgres.PostgresDatabase {
    /// The one integer `sql` answers.
    fileprivate func count(_ sql: String) async throws -> Int {
        for try await count in try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) { return count }
        return 0
    }
}

/// Numbers handed out in order to whoever asks first.
private final class Numbers: Sendable {
    private let last = Mutex(-1)

    func next() -> Int { last.withLock { $0 += 1; return $0 } }
}

extension Range<Int> {
    /// How many of the range's elements `predicate` holds for, asked one after another.
    fileprivate func asyncCount(_ predicate: (Int) async -> Bool) async -> Int {
        var count = 0
        for element in self where await predicate(element) { count += 1 }
        return count
    }
}
