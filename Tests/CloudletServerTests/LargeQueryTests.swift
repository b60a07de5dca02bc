import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

@Suite("Large $in, $nin, $all, $or and include fan-outs answer correctly")
struct LargeQueryTests {
    /// 1,200 items numbered 0…1199, with their ids in order.
    private static func seedItems(_ client: ParseTestClient) async throws -> [String] {
        try await Support.batchCreate(client, "Items", count: 1200) { ["n": .number(Double($0)), "tag": .string("t\($0)")] }
        let all = try await client.get("/classes/Items", query: ["limit": 1000, "order": "n", "keys": "n"], master: true)
        let rest = try await client.get("/classes/Items", query: ["limit": 1000, "skip": 1000, "order": "n", "keys": "n"], master: true)
        return Support.ids(all) + Support.ids(rest)
    }

    @Test("$in and $nin with 1,200 ids, numbers or strings", arguments: TestStore.allCases)
    func inAndNin(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ids = try await Self.seedItems(client)
            #expect(ids.count == 1200)
            let byId = try await client.get(
                "/classes/Items", query: ["where": ["objectId": ["$in": .array(ids.map(ParseValue.string))]], "count": 1, "limit": 0])
            #expect(byId.status == 200, "\(byId.body)")
            #expect(byId["count"] == 1200)
            let numbers = (0..<1200).filter { $0 % 2 == 0 }.map { ParseValue.number(Double($0)) } + (5000..<5600).map { .number(Double($0)) }
            let even = try await client.get("/classes/Items", query: ["where": ["n": ["$in": .array(numbers)]], "count": 1, "limit": 0])
            #expect(even["count"] == 600, "\(even.body)")
            let tags = (0..<1100).map { ParseValue.string("t\($0)") }
            let notTagged = try await client.get("/classes/Items", query: ["where": ["tag": ["$nin": .array(tags)]], "order": "n", "limit": 1000])
            #expect(Support.values(notTagged, "n") == (1100..<1200).map { .number(Double($0)) }, "\(notTagged.body)")
            // Typed as before: the string "1" is not the number 1.
            let mixed = try await client.get("/classes/Items", query: ["where": ["n": ["$in": .array((0..<1200).map { .string("\($0)") })]], "count": 1, "limit": 0])
            #expect(mixed["count"] == 0)
        }
    }

    @Test("$all with 1,200 values on an array field", arguments: TestStore.allCases)
    func allOfMany(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let values = (0..<1200).map { ParseValue.string("v\($0)") }
            try await Support.create(client, "Bags", ["name": "full", "items": .array(values)])
            try await Support.create(client, "Bags", ["name": "short", "items": .array(Array(values.dropLast()))])
            let reply = try await client.get("/classes/Bags", query: ["where": ["items": ["$all": .array(values)]]])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(Support.values(reply, "name") == ["full"])
        }
    }

    @Test("$or with 500 branches, the most one query may have", arguments: TestStore.allCases)
    func orOfMany(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedItems(client)
            let branches = (0..<1200).filter { $0 % 3 == 0 }.map { ParseValue.object(["n": .number(Double($0))]) }
                + (0..<100).map { ParseValue.object(["tag": .string("none\($0)")]) }
            let reply = try await client.get("/classes/Items", query: ["where": ["$or": .array(branches)], "count": 1, "limit": 0])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["count"] == 400)
        }
    }

    @Test("include over 1,200 distinct targets fetches every one of them", arguments: TestStore.allCases)
    func includeManyTargets(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ids = try await Self.seedItems(client)
            let pointers = ids.map { ParseValue.pointer(className: "Items", objectId: $0) }
            let list = try await Support.create(client, "Lists", ["items": .array(pointers)])
            let reply = try await client.get("/classes/Lists/\(list)", query: ["include": "items"])
            #expect(reply.status == 200, "\(reply.body)")
            let items = try #require(reply["items"]?.arrayValue)
            #expect(items.count == 1200)
            #expect(items.allSatisfy { $0["__type"] == "Object" }, "some targets were left as pointers")
            #expect(items.map { $0["n"] } == (0..<1200).map { .number(Double($0)) })
        }
    }

    @Test("a query too large for one SQLite statement answers 102, not 500", arguments: TestStore.allCases)
    func tooLargeForOneStatement(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Items", ["n": 1])
            let branches = (0..<12_000).map { ParseValue.object(["n": .number(Double($0))]) }
            let reply = try await client.request(.get, "/classes/Items", body: ["where": ["$or": .array(branches)]])
            Support.expectError(reply, status: 400, code: 102)
        }
    }
}
