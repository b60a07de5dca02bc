import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Inner queries: $inQuery, $notInQuery, $select, $dontSelect")
struct InnerQueryTests {
    /// Teams A (city Oslo), B (Rome) and a team only the user `owner` may read (Paris); players
    /// pointing to them. Returns the team ids by name.
    private static func seed(_ client: ParseTestClient) async throws -> [String: String] {
        var teams: [String: String] = [:]
        teams["A"] = try await Support.create(client, "Teams", ["name": "A", "city": "Oslo", "rank": 1])
        teams["B"] = try await Support.create(client, "Teams", ["name": "B", "city": "Rome", "rank": 2])
        teams["Hidden"] = try await Support.create(
            client, "Teams", ["name": "Hidden", "city": "Paris", "rank": 1, "ACL": ["owner": ["read": true, "write": true]]])
        let players: [(String, String?, String)] = [
            ("ann", "A", "Oslo"), ("bob", "B", "Oslo"), ("cid", "Hidden", "Paris"), ("dan", nil, "Rome"),
        ]
        for (name, team, home) in players {
            var fields: [String: ParseValue] = ["name": .string(name), "home": .string(home)]
            if let team { fields["team"] = .pointer(className: "Teams", objectId: teams[team]!) }
            try await Support.create(client, "Players", fields)
        }
        try await Support.create(client, "Squads", ["name": "s1", "members": [.pointer(className: "Teams", objectId: teams["B"]!)]])
        return teams
    }

    private static func names(
        _ client: ParseTestClient, _ constraints: ParseValue, master: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let reply = try await client.get("/classes/Players", query: ["where": constraints], master: master)
        #expect(reply.status == 200, "where \(constraints): \(reply.body)", sourceLocation: sourceLocation)
        return Support.values(reply, "name").compactMap(\.stringValue).sorted()
    }

    private static func inner(_ className: String, _ constraints: ParseValue) -> ParseValue {
        ["className": .string(className), "where": constraints]
    }

    @Test("$inQuery and $notInQuery match pointers to the inner query's results, and arrays of them", arguments: TestStore.allCases)
    func inQuery(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            let rankOne = Self.inner("Teams", ["rank": 1])
            #expect(try await Self.names(client, ["team": ["$inQuery": rankOne]], master: true) == ["ann", "cid"])
            #expect(try await Self.names(client, ["team": ["$notInQuery": rankOne]], master: true) == ["bob", "dan"])
            #expect(try await Self.names(client, ["team": ["$inQuery": Self.inner("Teams", ["rank": 9])]]) == [])
            #expect(try await Self.names(client, ["team": ["$inQuery": Self.inner("Teams", [:])], "home": "Oslo"]) == ["ann", "bob"])
            let squads = try await client.get("/classes/Squads", query: ["where": ["members": ["$inQuery": Self.inner("Teams", ["name": "B"])]]])
            #expect(Support.values(squads, "name") == ["s1"])
            let none = try await client.get("/classes/Squads", query: ["where": ["members": ["$inQuery": Self.inner("Teams", ["name": "A"])]]])
            #expect(Support.values(none, "name") == [])
        }
    }

    @Test("$inQuery and $notInQuery on a relation field match the objects that relate one of the inner results, nested too", arguments: TestStore.allCases)
    func inQueryOnRelations(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let teams = try await Self.seed(client)
            func fans(_ names: String...) -> ParseValue { .addRelation(names.map { .pointer(className: "Teams", objectId: teams[$0]!) }) }
            try await Support.create(client, "Clubs", ["name": "north", "follows": fans("A")])
            try await Support.create(client, "Clubs", ["name": "south", "follows": fans("B", "Hidden")])
            try await Support.create(client, "Clubs", ["name": "none"])
            func clubs(_ constraints: ParseValue, master: Bool = true) async throws -> [String] {
                let reply = try await client.get("/classes/Clubs", query: ["where": constraints], master: master)
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            #expect(try await clubs(["follows": ["$inQuery": Self.inner("Teams", ["city": "Oslo"])]]) == ["north"])
            #expect(try await clubs(["follows": ["$inQuery": Self.inner("Teams", ["rank": 1])]]) == ["north", "south"])
            #expect(try await clubs(["follows": ["$notInQuery": Self.inner("Teams", ["rank": 1])]]) == ["none"])
            #expect(try await clubs(["follows": ["$inQuery": Self.inner("Teams", ["rank": 1])]], master: false) == ["north"], "the hidden team stays hidden")
            // Nested: fans of a club that follows a team in Oslo.
            let clubIds = try await client.get("/classes/Clubs", query: ["where": ["name": "north"]], master: true)
            let north = try #require(Support.values(clubIds, "objectId").first?.stringValue)
            try await Support.create(client, "Fans", ["name": "fay", "club": .pointer(className: "Clubs", objectId: north)])
            try await Support.create(client, "Fans", ["name": "gus"])
            let followsOslo = Self.inner("Clubs", ["follows": ["$inQuery": Self.inner("Teams", ["city": "Oslo"])]])
            let fans = try await client.get("/classes/Fans", query: ["where": ["club": ["$inQuery": followsOslo]]], master: true)
            #expect(Support.values(fans, "name") == ["fay"], "\(fans.body)")
        }
    }

    @Test("$select and $dontSelect compare a field with a key of the inner query's results", arguments: TestStore.allCases)
    func select(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            let rankOne: ParseValue = ["query": Self.inner("Teams", ["rank": 1]), "key": "city"]
            #expect(try await Self.names(client, ["home": ["$select": rankOne]], master: true) == ["ann", "bob", "cid"])
            #expect(try await Self.names(client, ["home": ["$dontSelect": rankOne]], master: true) == ["dan"])
            let noWhere: ParseValue = ["query": ["className": "Teams"], "key": "city"]
            #expect(try await Self.names(client, ["home": ["$select": noWhere]], master: true) == ["ann", "bob", "cid", "dan"])
            let count = try await client.get(
                "/classes/Players", query: ["where": ["home": ["$dontSelect": rankOne]], "count": 1, "limit": 0], master: true)
            #expect(count["count"] == 1)
        }
    }

    @Test("inner queries nest, and combine with $or", arguments: TestStore.allCases)
    func nesting(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            let playersOfA = Self.inner("Players", ["team": ["$inQuery": Self.inner("Teams", ["name": "A"])]])
            let teamsWithAnnHome: ParseValue = ["city": ["$select": ["query": playersOfA, "key": "home"]]]
            #expect(try await Self.names(client, ["team": ["$inQuery": Self.inner("Teams", teamsWithAnnHome)]]) == ["ann"])
            let either: ParseValue = ["$or": [["team": ["$inQuery": Self.inner("Teams", ["name": "B"])]], ["name": "dan"]]]
            #expect(try await Self.names(client, either) == ["bob", "dan"])
        }
    }

    @Test("the inner query reads only what the caller may read: a hidden object never decides a match", arguments: TestStore.allCases)
    func aclHiding(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            let paris = Self.inner("Teams", ["city": "Paris"])
            // The master key sees the hidden team; a client does not, whichever operator it asks through.
            #expect(try await Self.names(client, ["team": ["$inQuery": paris]], master: true) == ["cid"])
            #expect(try await Self.names(client, ["team": ["$inQuery": paris]]) == [])
            // To a client the inner query finds nothing, so cid's team is not among its results.
            #expect(try await Self.names(client, ["team": ["$notInQuery": paris], "name": "cid"]) == ["cid"])
            #expect(try await Self.names(client, ["team": ["$notInQuery": paris], "name": "cid"], master: true) == [])
            #expect(try await Self.names(client, ["home": ["$select": ["query": paris, "key": "city"]]]) == [])
            #expect(try await Self.names(client, ["home": ["$select": ["query": paris, "key": "city"]]], master: true) == ["cid"])
            let count = try await client.get("/classes/Players", query: ["where": ["team": ["$inQuery": paris]], "count": 1, "limit": 0])
            #expect(count["count"] == 0)
        }
    }

    @Test("protected fields and unlisted classes stay closed through inner queries: 119", arguments: TestStore.allCases)
    func protectedThroughInnerQueries(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let user = try await client.post("/users", ["username": "u", "password": "p", "email": "u@example.com"])
            let userId = try #require(user["objectId"]?.stringValue)
            try await Support.create(client, "Posts", ["by": .pointer(className: "_User", objectId: userId), "t": "x"])
            let byEmail: ParseValue = ["by": ["$inQuery": Self.inner("_User", ["email": "u@example.com"])]]
            Support.expectError(try await client.get("/classes/Posts", query: ["where": byEmail]), status: 403, code: 119)
            let selectEmail: ParseValue = ["t": ["$select": ["query": ["className": "_User"], "key": "email"]]]
            Support.expectError(try await client.get("/classes/Posts", query: ["where": selectEmail]), status: 403, code: 119)
            let installations: ParseValue = ["by": ["$inQuery": Self.inner("_Installation", [:])]]
            Support.expectError(try await client.get("/classes/Posts", query: ["where": installations]), status: 403, code: 119)
            let fine = try await client.get("/classes/Posts", query: ["where": byEmail], master: true)
            #expect(Support.values(fine, "t") == ["x"])
        }
    }

    @Test("malformed inner queries answer 102, 103 or 105; none is a 5xx", arguments: TestStore.allCases)
    func hostileShapes(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            let refused: [(ParseValue, Int)] = [
                (["team": ["$inQuery": "Teams"]], 102),
                (["team": ["$inQuery": ["className": "Teams"]]], 102),
                (["team": ["$inQuery": ["where": [:]]]], 102),
                (["team": ["$inQuery": ["className": 7, "where": [:]]]], 102),
                (["team": ["$inQuery": ["className": "Teams", "where": [1, 2]]]], 102),
                (["team": ["$inQuery": ["className": "no such!", "where": [:]]]], 103),
                (["team": ["$inQuery": ["className": "_Session", "where": [:]]]], 103),
                (["team": ["$inQuery": Self.inner("Teams", ["rank": ["$bogus": 1]])]], 102),
                (["objectId": ["$inQuery": Self.inner("Teams", [:])]], 102),
                (["home": ["$select": ["query": Self.inner("Teams", [:])]]], 102),
                (["home": ["$select": ["query": Self.inner("Teams", [:]), "key": "city", "extra": 1]]], 102),
                (["home": ["$select": ["query": "Teams", "key": "city"]]], 102),
                (["home": ["$select": ["query": Self.inner("Teams", [:]), "key": "no such!"]]], 105),
                (["home": ["$dontSelect": ["query": Self.inner("Teams", [:]), "key": 3]]], 102),
            ]
            for (constraints, code) in refused {
                let reply = try await client.get("/classes/Players", query: ["where": constraints])
                Support.expectError(reply, status: 400, code: code)
            }
        }
    }

    @Test("inner queries nested past the bound answer 102, and huge lists inside them count against the query's bounds", arguments: TestStore.allCases)
    func bounds(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seed(client)
            var query: ParseValue = ["name": "A"]
            for _ in 0..<20 { query = ["team": ["$inQuery": Self.inner("Players", query)]] }
            let deep = try await client.get("/classes/Players", query: ["where": query])
            Support.expectError(deep, status: 400, code: 102)
            #expect(deep["error"]?.stringValue?.contains("nested") == true, "\(deep.body)")

            let many = ParseValue.array((0..<20_000).map { .string("city\($0)") })
            let twice: ParseValue = [
                "home": ["$in": many],
                "team": ["$inQuery": Self.inner("Teams", ["city": ["$in": many]])],
            ]
            let huge = try await client.get("/classes/Players", query: ["where": twice])
            Support.expectError(huge, status: 400, code: 102)
            // 600 conditions outside and 600 inside: each half passes alone, together they pass the bound of 1,000.
            var outer: [String: ParseValue] = [:]
            var inside: [String: ParseValue] = [:]
            for index in 0..<600 {
                outer["f\(index)"] = ["$exists": false]
                inside["g\(index)"] = ["$exists": false]
            }
            #expect(try await Self.names(client, .object(outer)).count == 4)
            #expect(try await Self.names(client, ["team": ["$inQuery": Self.inner("Teams", .object(inside))]]) == ["ann", "bob"])
            outer["team"] = ["$inQuery": Self.inner("Teams", .object(inside))]
            Support.expectError(try await client.get("/classes/Players", query: ["where": .object(outer)]), status: 400, code: 102)

            let some = ParseValue.array(["Rome"] + (0..<100).map { .string("city\($0)") })
            #expect(try await Self.names(client, ["team": ["$inQuery": Self.inner("Teams", ["city": ["$in": some]])]]) == ["bob"])
        }
    }
}
