import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// A query is bounded by what it compiles to: its `$or`/`$and` branches, its conditions, the
/// values it compares with and its SQL; past a bound it answers 102 before SQLite runs it.
@Suite("Queries are bounded by what they compile to")
struct QueryBoundsTests {
    /// How many `Items` match `constraints` (the only one has `n` 3), as the client key asks.
    static func count(_ client: ParseTestClient, _ constraints: [String: ParseValue]) async throws -> ParseTestClient.Reply {
        try await client.request(.get, "/classes/Items", body: ["where": .object(constraints), "count": 1, "limit": 0])
    }

    static func expectRefused(_ reply: ParseTestClient.Reply, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        Support.expectError(reply, status: 400, code: 102, sourceLocation: sourceLocation)
        #expect(reply["error"]?.stringValue?.contains(words) == true, "\(reply.body)", sourceLocation: sourceLocation)
    }

    static func branches(_ count: Int, _ branch: ParseValue) -> [String: ParseValue] {
        ["$or": .array(Array(repeating: branch, count: count))]
    }

    @Test(arguments: TestStore.allCases) func anOrOfThousandsOfInListsIsRefusedAndOneOfFiveHundredServed(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Items", ["n": 3])
            let inList: ParseValue = ["n": ["$in": [1, 2, 3, 4, 5, 6]]]
            // 4,999 branches bind 29,994 values: under the bound on bound values, far over the branches'.
            Self.expectRefused(try await Self.count(client, Self.branches(4_999, inList)), saying: "more than 500 $or and $and branches")
            Self.expectRefused(try await Self.count(client, Self.branches(501, inList)), saying: "more than 500 $or and $and branches")
            let nested: ParseValue = ["$and": .array(Array(repeating: inList, count: 2))]
            Self.expectRefused(try await Self.count(client, Self.branches(251, nested)), saying: "branches")
            let atBound = try await Self.count(client, Self.branches(500, inList))
            #expect(atBound.status == 200, "\(atBound.body)")
            #expect(atBound["count"] == 1)
        }
    }

    @Test(arguments: TestStore.allCases) func conditionsAndTheirSQLAreBounded(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Items", ["n": 3])
            func absent(_ count: Int) -> [String: ParseValue] {
                Dictionary(uniqueKeysWithValues: (0..<count).map { ("f\($0)", ["$exists": false] as ParseValue) })
            }
            let atBound = try await Self.count(client, absent(1_000))
            #expect(atBound.status == 200, "\(atBound.body)")
            #expect(atBound["count"] == 1)
            Self.expectRefused(try await Self.count(client, absent(1_001)), saying: "more than 1000 conditions")
            // 900 list tests on fields that may hold arrays compile to more SQL than a query may on
            // SQLite; PostgreSQL's are shorter, and serve it.
            let lists = Dictionary(uniqueKeysWithValues: (0..<900).map { ("f\($0)", ["$in": ["a", "b"]] as ParseValue) })
            switch store {
            case .sqlite: Self.expectRefused(try await Self.count(client, lists), saying: "bytes of SQL")
            case .postgres: #expect(try await Self.count(client, lists)["count"] == 0)
            }
        }
    }

    @Test(arguments: TestStore.allCases) func aQueryComparesWithAtMostThirtyThousandValues(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Items", ["n": 3])
            func numbers(_ range: Range<Int>) -> ParseValue { .array(range.map { .number(Double($0)) }) }
            let atBound = try await Self.count(client, ["n": ["$in": numbers(0..<30_000)]])
            #expect(atBound.status == 200, "\(atBound.body)")
            #expect(atBound["count"] == 1)
            Self.expectRefused(try await Self.count(client, ["n": ["$in": numbers(0..<30_001)]]), saying: "more than 30000 values")
            let split: [String: ParseValue] = ["n": ["$in": numbers(0..<15_000), "$nin": numbers(15_000..<30_001)]]
            Self.expectRefused(try await Self.count(client, split), saying: "more than 30000 values")
        }
    }
}
