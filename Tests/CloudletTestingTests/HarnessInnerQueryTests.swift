import Cloudlet
import CloudletTesting
import Testing

@Suite("The hook harness: inner queries, $containedBy and excludeKeys through a hook's store")
struct HarnessInnerQueryTests {
    /// A function that finds the players of rank-one teams, their tags within `["x", "y"]`, without `secret`.
    private static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("players") { request in
            let rankOne = ParseQuery("Teams").whereKey("rank", equalTo: 1)
            let mode = request.params["mode"]?.stringValue ?? ""
            var query = ParseQuery("Players").excludeKeys("secret")
            switch mode {
            case "in": query = query.whereKey("team", matchesQuery: rankOne)
            case "notIn": query = query.whereKey("team", doesNotMatchQuery: rankOne)
            case "select": query = query.whereKey("home", matchesKey: "city", in: rankOne)
            case "dontSelect": query = query.whereKey("home", doesNotMatchKey: "city", in: rankOne)
            default: query = query.whereKey("tags", containedBy: ["x", "y"])
            }
            let names = try await request.store.find(query).map { $0["secret"] == nil ? $0["name"]?.stringValue ?? "" : "secret shown" }
            return .array(names.sorted().map(ParseValue.string))
        }
        return hooks
    }

    @Test func theQueryBuilderOperatorsRunAsTheCaller() async throws {
        try await Self.check(try HookHarness(registry: Self.hooks))
    }

    @Test func theyCrossTheWorkerWireIntact() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.hooks) { harness in try await Self.check(harness) }
    }

    private static func check(_ harness: HookHarness) async throws {
        let open = try await harness.create("Teams", ["rank": 1, "city": "Oslo"])
        let closed = try await harness.create(
            "Teams", ["rank": 1, "city": "Rome", "ACL": ParseACL.only(readers: ["u1"], writers: ["u1"]).json])
        try await harness.create(
            "Players", ["name": "ann", "home": "Oslo", "secret": 1, "tags": ["x"], "team": .pointer(className: "Teams", objectId: open.objectId!)])
        try await harness.create(
            "Players", ["name": "bob", "home": "Rome", "secret": 2, "tags": ["x", "z"], "team": .pointer(className: "Teams", objectId: closed.objectId!)])

        #expect(try await harness.call("players", ["mode": "in"], as: .user("u1")) == ["ann", "bob"])
        #expect(try await harness.call("players", ["mode": "in"], as: .user("u2")) == ["ann"])
        #expect(try await harness.call("players", ["mode": "notIn"], as: .user("u2")) == ["bob"])
        #expect(try await harness.call("players", ["mode": "select"], as: .user("u2")) == ["ann"])
        #expect(try await harness.call("players", ["mode": "dontSelect"], as: .user("u1")) == [])
        #expect(try await harness.call("players", ["mode": "dontSelect"], as: .user("u2")) == ["bob"])
        #expect(try await harness.call("players", ["mode": "containedBy"], as: .master) == ["ann"])
    }
}
