import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres

/// What the PostgreSQL work queue does beyond the behaviour both stores share (`WorkQueueTests`):
/// several nodes claiming from one table, schemas made once when nodes start at once, and each
/// app's rows in its own schema.
@Suite struct PostgresWorkQueueTests {
    private let now = Date(timeIntervalSince1970: 1_000_000)

    private func work(_ id: String, app: String = "") -> NewWork {
        NewWork(id: id, kind: .afterHook, payload: ["id": .string(id), "app": .string(app)], due: now)
    }

    @Test func twoNodesClaimingAtOnceNeverTakeTheSameRow() async throws {
        try await TemporaryPostgres.with { database, schema in
            let first = try await PostgresWorkQueue(database, schema: schema)
            try await first.enqueue((0..<200).map { work("w\($0)") })
            try await TemporaryPostgres.secondNode { other in
                let second = try await PostgresWorkQueue(other, schema: schema)
                // Each node claims in several tasks at once until the queue is empty.
                let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                    for (node, queue) in [("a", first), ("b", second)] {
                        for task in 0..<3 {
                            group.addTask {
                                var taken: [String] = []
                                while true {
                                    let batch = try await queue.claim(
                                        [.afterHook], limit: 7, owner: "\(node)\(task)", at: now, leasedUntil: now + 60)
                                    if batch.isEmpty { return taken }
                                    taken += batch.map(\.id)
                                }
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(claimed.count == 200, "no row claimed twice")
                #expect(Set(claimed) == Set((0..<200).map { "w\($0)" }), "every row claimed")
            }
        }
    }

    @Test func aRowLeasedByANodeThatDiedIsTakenOverOnceItsLeaseRunsOut() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { dying in
                let queue = try await PostgresWorkQueue(dying, schema: schema)
                try await queue.enqueue([work("a")])
                #expect(try await queue.claim([.afterHook], limit: 1, owner: "dies", at: now, leasedUntil: now + 30).map(\.id) == ["a"])
            }
            let survivor = try await PostgresWorkQueue(database, schema: schema)
            #expect(try await survivor.claim([.afterHook], limit: 1, owner: "lives", at: now + 29, leasedUntil: now + 60).isEmpty)
            let taken = try await survivor.claim([.afterHook], limit: 1, owner: "lives", at: now + 30, leasedUntil: now + 60)
            #expect(taken.map(\.id) == ["a"])
            #expect(taken.first?.attempts == 2)
            #expect(try await survivor.complete("a", owner: "lives"))
        }
    }

    @Test func workQueuedByOneNodeWakesTheOthersLoop() async throws {
        try await TemporaryPostgres.with { database, schema in
            let first = try await PostgresWorkQueue(database, schema: schema)
            try await TemporaryPostgres.secondNode { other in
                let second = try await PostgresWorkQueue(other, schema: schema)
                let otherApp = try await PostgresWorkQueue(other, schema: PostgresAppSchema(appId: schema.name + "-2"))
                try await Task.sleep(for: .milliseconds(100))
                let (woken, otherWoken) = (second.workQueued.count, otherApp.workQueued.count)
                try await first.enqueue([work("a")])
                let deadline = ContinuousClock.now + .seconds(5)
                while second.workQueued.count == woken, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                #expect(second.workQueued.count > woken, "the other node's loop woke")
                #expect(otherApp.workQueued.count == otherWoken, "another app's loop did not")
                try await other.execute("DROP SCHEMA \(PostgresAppSchema(appId: schema.name + "-2").quoted) CASCADE")
            }
        }
    }

    @Test func nodesStartingAtOnceMakeAnAppsSchemaOnce() async throws {
        try await TemporaryPostgres.with { database, schema in
            let made = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await TemporaryPostgres.secondNode { node in try await PostgresMigrations.apply(to: schema, in: node) }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(made == PostgresMigrations.all.map(\.name), "each change applied by one node, once")
            #expect(try await PostgresMigrations.apply(to: schema, in: database).isEmpty)
        }
    }

    @Test func eachAppsWorkIsInItsOwnSchema() async throws {
        try await TemporaryPostgres.with { database, shop in
            let other = PostgresAppSchema(appId: shop.name + "-other")
            let shopQueue = try await PostgresWorkQueue(database, schema: shop)
            let otherQueue = try await PostgresWorkQueue(database, schema: other)
            try await shopQueue.enqueue([work("same-id", app: "shop")])
            try await otherQueue.enqueue([work("same-id", app: "other")])
            let claimed = try await otherQueue.claim([.afterHook], limit: 10, owner: "o", at: now, leasedUntil: now + 30)
            #expect(claimed.map { $0.payload["app"] } == ["other"], "the same id in another app is another row")
            #expect(try await otherQueue.complete("same-id", owner: "o"))
            #expect(try await shopQueue.nextDue([.afterHook]) == now, "the other app's completion left this app's row alone")
            try await database.execute("DROP SCHEMA \(other.quoted) CASCADE")
        }
    }

    @Test func anAppsSchemaNameIsItsIdInLowerCaseOrADigestWhenTooLong() {
        #expect(PostgresAppSchema(appId: "Shop-2").name == "app_shop-2")
        #expect(PostgresAppSchema(appId: "Shop-2").quoted == "\"app_shop-2\"")
        let long = String(repeating: "a", count: 64)
        let name = PostgresAppSchema(appId: long).name
        #expect(name.utf8.count <= 63)
        #expect(name != PostgresAppSchema(appId: String(repeating: "a", count: 63) + "b").name)
        #expect(name == PostgresAppSchema(appId: long.uppercased()).name)
    }
}
