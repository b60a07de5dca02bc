import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Relations: AddRelation, RemoveRelation, Batch and $relatedTo")
struct RelationTests {
    private static func pointer(_ className: String, _ id: String) -> ParseValue { .pointer(className: className, objectId: id) }

    private static func addRelation(_ pointers: ParseValue...) -> ParseValue { .addRelation(pointers) }

    /// The names of the `Tags` in the `tags` relation of the post `post`, as `master` or the client sees them.
    private static func tagNames(
        _ client: ParseTestClient, of post: String, master: Bool = false, sessionToken: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let relatedTo: ParseValue = ["$relatedTo": ["object": pointer("Posts", post), "key": "tags"]]
        let reply = try await client.get("/classes/Tags", query: ["where": relatedTo], master: master, sessionToken: sessionToken)
        #expect(reply.status == 200, "\(reply.body)", sourceLocation: sourceLocation)
        return Support.values(reply, "name").compactMap(\.stringValue).sorted()
    }

    @Test("AddRelation and RemoveRelation change the join rows; the field reads back as a Relation", arguments: TestStore.allCases)
    func addAndRemove(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let swift = try await Support.create(client, "Tags", ["name": "swift"])
            let nio = try await Support.create(client, "Tags", ["name": "nio"])
            let post = try await Support.create(client, "Posts", ["title": "t", "tags": Self.addRelation(Self.pointer("Tags", swift))])
            #expect(try await Self.tagNames(client, of: post) == ["swift"])

            let added = try await client.put("/classes/Posts/\(post)", ["tags": Self.addRelation(Self.pointer("Tags", nio), Self.pointer("Tags", swift))])
            #expect(added.status == 200, "\(added.body)")
            #expect(added["tags"] == nil, "Parse does not answer a relation operation's result: \(added.body)")
            #expect(try await Self.tagNames(client, of: post) == ["nio", "swift"])
            #expect(try await client.get("/classes/Posts/\(post)")["tags"] == .relation(className: "Tags"))

            let removed = try await client.put("/classes/Posts/\(post)", ["tags": .removeRelation([Self.pointer("Tags", swift)])])
            #expect(removed.status == 200, "\(removed.body)")
            #expect(try await Self.tagNames(client, of: post) == ["nio"])
            let count = try await client.get(
                "/classes/Tags", query: ["where": ["$relatedTo": ["object": Self.pointer("Posts", post), "key": "tags"]], "count": 1, "limit": 0])
            #expect(count["count"] == 1)
        }
    }

    @Test("a Batch of AddRelation and RemoveRelation applies in order, and POST /batch carries relation operations", arguments: TestStore.allCases)
    func batches(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let a = try await Support.create(client, "Tags", ["name": "a"])
            let b = try await Support.create(client, "Tags", ["name": "b"])
            let post = try await Support.create(client, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", a))])
            let ops: ParseValue = [
                "__op": "Batch",
                "ops": [Self.addRelation(Self.pointer("Tags", b)), .removeRelation([Self.pointer("Tags", a)])],
            ]
            #expect(try await client.put("/classes/Posts/\(post)", ["tags": ops]).status == 200)
            #expect(try await Self.tagNames(client, of: post) == ["b"])

            let requests: ParseValue = [
                ["method": "PUT", "path": .string("/parse/classes/Posts/\(post)"), "body": ["tags": Self.addRelation(Self.pointer("Tags", a))]],
                ["method": "POST", "path": "/parse/classes/Posts", "body": ["tags": Self.addRelation(Self.pointer("Tags", b))]],
            ]
            let reply = try await client.post("/batch", ["requests": requests])
            let entries = try #require(reply.body.arrayValue, "\(reply.body)")
            #expect(entries.allSatisfy { $0["success"] != nil }, "\(entries)")
            #expect(try await Self.tagNames(client, of: post) == ["a", "b"])
            let second = try #require(entries.last?["success"]?["objectId"]?.stringValue)
            #expect(try await Self.tagNames(client, of: second) == ["b"])
        }
    }

    @Test("$relatedTo finds only the related objects the reader may read, and combines with other constraints", arguments: TestStore.allCases)
    func aclsStillApply(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let signup = try await client.post("/users", ["username": "ann", "password": "pw"])
            let ann = try #require(signup["objectId"]?.stringValue)
            let token = try #require(signup["sessionToken"]?.stringValue)
            let open = try await Support.create(client, "Tags", ["name": "open", "rank": 1])
            let closed = try await Support.create(client, "Tags", ["name": "closed", "rank": 2, "ACL": [ann: ["read": true]]])
            try await Support.create(client, "Tags", ["name": "unrelated", "rank": 1])
            let post = try await Support.create(
                client, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", open), Self.pointer("Tags", closed))])
            #expect(try await Self.tagNames(client, of: post) == ["open"])
            #expect(try await Self.tagNames(client, of: post, sessionToken: token) == ["closed", "open"])
            #expect(try await Self.tagNames(client, of: post, master: true) == ["closed", "open"])
            let both: ParseValue = ["$relatedTo": ["object": Self.pointer("Posts", post), "key": "tags"], "rank": 2]
            #expect(Support.values(try await client.get("/classes/Tags", query: ["where": both], master: true), "name") == ["closed"])
            // Another class's query, another key, another owner: nothing.
            let otherClass = try await client.get(
                "/classes/Posts", query: ["where": ["$relatedTo": ["object": Self.pointer("Posts", post), "key": "tags"]]], master: true)
            #expect(Support.ids(otherClass).isEmpty)
            let otherKey = try await client.get(
                "/classes/Tags", query: ["where": ["$relatedTo": ["object": Self.pointer("Posts", post), "key": "labels"]]], master: true)
            #expect(Support.ids(otherKey).isEmpty)
        }
    }

    @Test("a relation field's target class is fixed by its first use; other values and pointers answer 111", arguments: TestStore.allCases)
    func typeMismatches(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let tag = try await Support.create(client, "Tags", ["name": "t"])
            let user = try await Support.create(client, "Authors", ["name": "u"])
            let post = try await Support.create(client, "Posts", ["title": "x", "tags": Self.addRelation(Self.pointer("Tags", tag))])
            let bodies: [[String: ParseValue]] = [
                ["tags": Self.addRelation(Self.pointer("Authors", user))],
                ["tags": .removeRelation([Self.pointer("Authors", user)])],
                ["tags": "a string"],
                ["tags": Self.pointer("Tags", tag)],
                ["title": Self.addRelation(Self.pointer("Tags", tag))],
                ["other": Self.addRelation(Self.pointer("Tags", tag), Self.pointer("Authors", user))],
                ["other": Self.addRelation("not a pointer")],
                ["other": Self.addRelation(["__type": "Pointer", "className": "Tags"])],
                ["other": ["__op": "Batch", "ops": [["__op": "Increment", "amount": 1]]]],
                ["other": ["__op": "AddRelation", "objects": "x"]],
            ]
            for body in bodies {
                Support.expectError(try await client.put("/classes/Posts/\(post)", body), status: 400, code: 111)
            }
            // Another object of the class cannot change the field's target either.
            Support.expectError(
                try await client.post("/classes/Posts", ["tags": Self.addRelation(Self.pointer("Authors", user))]), status: 400, code: 111)
            Support.expectError(
                try await client.post("/classes/Posts", ["tags": .relation(className: "Authors")]), status: 400, code: 111)
            #expect(try await Self.tagNames(client, of: post, master: true) == ["t"])
            #expect(try await client.get("/classes/Posts/\(post)")["title"] == "x")
        }
    }

    @Test("deleting the owning object or a related one removes its join rows", arguments: TestStore.allCases)
    func deletesRemoveJoinRows(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let a = try await Support.create(client, "Tags", ["name": "a"])
            let b = try await Support.create(client, "Tags", ["name": "b"])
            let post = try await Support.create(client, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", a), Self.pointer("Tags", b))])
            #expect(try await client.delete("/classes/Tags/\(a)").status == 200)
            #expect(try await Self.tagNames(client, of: post) == ["b"])
            #expect(try await client.delete("/classes/Posts/\(post)").status == 200)
            // The tags outlive the post, but no longer belong to its relation.
            #expect(try await Self.tagNames(client, of: post, master: true) == [])
            #expect(try await Support.masterCount(client, "Tags") == 1)
        }
    }

    @Test("an app's relations are its own")
    func appsAreIsolated() async throws {
        try await RateLimitRouteTests.withApps(.off) { a, b in
            let tag = try await Support.create(a, "Tags", ["name": "a's"])
            let post = try await Support.create(a, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", tag))])
            // B relates its own post to an id that exists only in A: B's join row, B's query.
            let bPost = try await Support.create(b, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", tag))])
            #expect(try await Self.tagNames(a, of: post) == ["a's"])
            #expect(try await Self.tagNames(b, of: post, master: true) == [])
            #expect(try await Self.tagNames(b, of: bPost, master: true) == [])
            #expect(try await Self.tagNames(a, of: bPost, master: true) == [])
        }
    }

    @Test("hostile relation operations and $relatedTo operands answer Parse errors, never 5xx, and change nothing", arguments: TestStore.allCases)
    func hostileInputs(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let tag = try await Support.create(client, "Tags", ["name": "t"])
            let post = try await Support.create(client, "Posts", ["tags": Self.addRelation(Self.pointer("Tags", tag))])
            let tooMany = (0...RelationChange.maximumObjects).map { Self.pointer("Tags", "id\($0)") }
            Support.expectError(try await client.put("/classes/Posts/\(post)", ["tags": .addRelation(tooMany)]), status: 400, code: 107)
            let splitTooMany: ParseValue = [
                "__op": "Batch",
                "ops": [.addRelation(Array(tooMany.prefix(600))), .removeRelation(Array(tooMany.suffix(600)))],
            ]
            Support.expectError(try await client.put("/classes/Posts/\(post)", ["tags": splitTooMany]), status: 400, code: 107)
            Support.expectError(try await client.put("/classes/Posts/\(post)", ["tags": .addRelation([])]), status: 400, code: 111)
            Support.expectError(
                try await client.put("/classes/Posts/\(post)", ["tags": ["__op": "Batch", "ops": []]]), status: 400, code: 111)

            let badOperands: [ParseValue] = [
                "x", ["key": "tags"], ["object": Self.pointer("Posts", post)],
                ["object": Self.pointer("Posts", post), "key": 3], ["object": Self.pointer("Posts", post), "key": "$where"],
                ["object": ["__type": "Pointer", "className": "Bad Class", "objectId": .string(post)], "key": "tags"],
                ["object": Self.pointer("Posts", ""), "key": "tags"], ["object": "Posts", "key": "tags"],
                ["object": Self.pointer("Posts", post), "key": "tags", "extra": 1],
            ]
            for operand in badOperands {
                let reply = try await client.get("/classes/Tags", query: ["where": ["$relatedTo": operand]])
                Support.expectError(reply, status: 400, code: 102)
            }
            let nested: ParseValue = ["$or": [["$relatedTo": ["object": Self.pointer("Posts", post), "key": "tags"]], ["name": "none"]]]
            #expect(Support.values(try await client.get("/classes/Tags", query: ["where": nested]), "name") == ["t"])
            #expect(try await Self.tagNames(client, of: post) == ["t"])
        }
    }
}

extension RelationTests {
    @Test("equality, $in, $ne and $nin with pointers on a relation field find the objects that relate them", arguments: TestStore.allCases)
    func queriesOnRelationFields(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let a = try await Support.create(client, "Tags", ["name": "a"])
            let b = try await Support.create(client, "Tags", ["name": "b"])
            let hidden = try await Support.create(client, "Tags", ["name": "h"])
            try await Support.create(client, "Posts", ["title": "p1", "tags": Self.addRelation(Self.pointer("Tags", a))])
            try await Support.create(client, "Posts", ["title": "p2", "tags": Self.addRelation(Self.pointer("Tags", a), Self.pointer("Tags", b))])
            try await Support.create(
                client, "Posts", ["title": "p3", "tags": Self.addRelation(Self.pointer("Tags", hidden)), "ACL": ["nobody": ["read": true]]])
            try await Support.create(client, "Posts", ["title": "p4"])
            func titles(_ constraints: ParseValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
                let reply = try await client.get("/classes/Posts", query: ["where": constraints])
                #expect(reply.status == 200, "\(reply.body)", sourceLocation: sourceLocation)
                return Support.values(reply, "title").compactMap(\.stringValue).sorted()
            }
            #expect(try await titles(["tags": Self.pointer("Tags", a)]) == ["p1", "p2"])
            #expect(try await titles(["tags": Self.pointer("Tags", b)]) == ["p2"])
            #expect(try await titles(["tags": Self.pointer("Tags", hidden)]) == [])
            #expect(try await titles(["tags": ["$in": [Self.pointer("Tags", b), Self.pointer("Tags", hidden)]]]) == ["p2"])
            #expect(try await titles(["tags": ["$ne": Self.pointer("Tags", b)]]) == ["p1", "p4"])
            #expect(try await titles(["tags": ["$nin": [Self.pointer("Tags", a)]]]) == ["p4"])
            #expect(try await titles(["$or": [["tags": Self.pointer("Tags", b)], ["title": "p4"]]]) == ["p2", "p4"])
        }
    }
}
