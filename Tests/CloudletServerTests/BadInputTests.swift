import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

@Suite("Bad input: 4xx with a Parse error body, and nothing written")
struct BadInputTests {
    @Test("malformed JSON answers 107", arguments: ["{bad", "{\"title\": }", "{\"a\":1,}", "{\"a\":1} trailing", "nul", "\"unterminated"])
    func malformedJSON(text: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await Support.send(client, .post, "/classes/Posts", text: text)
            Support.expectError(reply, status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a body that is JSON but not an object answers 107", arguments: ["[{\"title\": \"x\"}]", "42", "\"text\"", "null", "true"])
    func nonObjectBody(text: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await Support.send(client, .post, "/classes/Posts", text: text)
            Support.expectError(reply, status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a body that is not valid UTF-8 answers 107", arguments: TestStore.allCases)
    func invalidUTF8(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var bytes = Array(#"{"title":"a"#.utf8)
            bytes += [0xFF, 0xFE]
            bytes += Array(#""}"#.utf8)
            let reply = try await client.raw(.post, "/classes/Posts", headers: Support.clientHeaders(), body: ByteBuffer(bytes: bytes))
            Support.expectError(reply, status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("malformed JSON in an update answers 107 and changes nothing", arguments: TestStore.allCases)
    func malformedUpdate(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi"])
            let reply = try await Support.send(client, .put, "/classes/Posts/\(id)", text: "{\"title\": \"Bye\"")
            Support.expectError(reply, status: 400, code: 107)
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "Hi")
        }
    }

    @Test("an invalid class name answers 103", arguments: ["1abc", "a-b", "_abc", "a.b", "a$b", String(repeating: "a", count: 129)])
    func invalidClassName(name: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let create = try await client.post("/classes/\(name)", ["title": "x"])
            Support.expectError(create, status: 400, code: 103)
            Support.expectError(try await client.get("/classes/\(name)"), status: 400, code: 103)
            Support.expectError(try await client.get("/classes/\(name)/abc"), status: 400, code: 103)
            Support.expectError(try await client.put("/classes/\(name)/abc", ["title": "y"]), status: 400, code: 103)
            Support.expectError(try await client.delete("/classes/\(name)/abc"), status: 400, code: 103)
        }
    }

    @Test("an invalid field name answers 105", arguments: ["$x", "a.b", "__op", "1abc", "a-b", "_private", "objectId", "a b", "", String(repeating: "f", count: 129)])
    func invalidFieldName(name: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post("/classes/Posts", [name: "x", "title": "ok"])
            Support.expectError(reply, status: 400, code: 105)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("an invalid field name in an update answers 105 and changes nothing", arguments: TestStore.allCases, ["$x", "a.b", "__op", "createdAt2-"])
    func invalidFieldNameUpdate(store: TestStore, name: String) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi"])
            let reply = try await client.put("/classes/Posts/\(id)", [name: "x", "title": "Bye"])
            Support.expectError(reply, status: 400, code: 105)
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["title"] == "Hi")
            #expect(fetched[name] == nil)
        }
    }

    @Test("an invalid key inside a nested object answers 105", arguments: TestStore.allCases)
    func invalidNestedKey(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for key in ["$where", "a.b", "__proto"] {
                let reply = try await client.post("/classes/Posts", ["meta": .object([key: 1])])
                Support.expectError(reply, status: 400, code: 105)
            }
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("an unknown __op answers 111", arguments: TestStore.allCases)
    func unknownOperation(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let create = try await client.post("/classes/Posts", ["n": ["__op": "Multiply", "amount": 2]])
            Support.expectError(create, status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Posts") == 0)
            let id = try await Support.create(client, "Posts", ["n": 1])
            let update = try await client.put("/classes/Posts/\(id)", ["n": ["__op": "Multiply", "amount": 2]])
            Support.expectError(update, status: 400, code: 111)
            let nonString = try await client.put("/classes/Posts/\(id)", ["n": ["__op": 5]])
            Support.expectError(nonString, status: 400, code: 111)
            #expect(try await client.get("/classes/Posts/\(id)")["n"] == 1)
        }
    }

    @Test("a body over the configured limit answers 413", arguments: TestStore.allCases)
    func bodyTooLarge(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: ServerConfiguration(maximumBodyBytes: 1000)) {
            client in
            let small = try await client.post("/classes/Posts", ["text": .string(String(repeating: "a", count: 500))])
            #expect(small.status == 201)
            let large = try await client.post("/classes/Posts", ["text": .string(String(repeating: "a", count: 2000))])
            Support.expectError(large, status: 413, code: 116)
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("JSON nested deeper than 64 levels answers 107", arguments: TestStore.allCases)
    func tooDeep(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let depth = 100
            let deep = "{\"a\":" + String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth) + "}"
            let reply = try await Support.send(client, .post, "/classes/Posts", text: deep)
            Support.expectError(reply, status: 400, code: 107)
            let arrays = "{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            Support.expectError(try await Support.send(client, .post, "/classes/Posts", text: arrays), status: 400, code: 107)
            // Very deep input must still give an error, not exhaust the stack.
            let hostile = String(repeating: "[", count: 100_000)
            Support.expectError(try await Support.send(client, .post, "/classes/Posts", text: hostile), status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("JSON nested a few levels is fine", arguments: TestStore.allCases)
    func moderatelyDeep(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let depth = 30
            let text = "{\"a\":" + String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth) + "}"
            let reply = try await Support.send(client, .post, "/classes/Posts", text: text)
            #expect(reply.status == 201, "\(reply.body)")
        }
    }

    @Test("a where that is not JSON answers 107", arguments: TestStore.allCases)
    func whereNotJSON(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "Hi"])
            Support.expectError(try await client.get("/classes/Posts", query: ["where": "{title:"]), status: 400, code: 107)
        }
    }

    @Test("a where that is JSON but not an object answers 102", arguments: TestStore.allCases)
    func whereNotObject(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.get("/classes/Posts", query: ["where": "[1,2]"]), status: 400, code: 102)
        }
    }

    @Test("an unknown query operator answers 102", arguments: TestStore.allCases, ["$foo", "$where", "$near", "$elemMatch"])
    func unknownOperator(store: TestStore, op: String) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "Hi"])
            let reply = try await client.get("/classes/Posts", query: ["where": ["title": .object([op: "x"])]])
            Support.expectError(reply, status: 400, code: 102)
        }
    }

    @Test("operators with arguments of the wrong kind answer 102", arguments: TestStore.allCases)
    func wrongOperands(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "Hi", "n": 1])
            let cases: [ParseValue] = [
                ["title": ["$in": "Hi"]],
                ["title": ["$nin": 3]],
                ["title": ["$all": ["a": 1]]],
                ["title": ["$exists": "yes"]],
                ["title": ["$regex": 5]],
                ["title": ["$regex": "("]],
                ["title": ["$regex": "H", "$options": "z"]],
                ["title": ["$options": "i"]],
                ["n": ["$gt": true]],
                ["n": ["$lt": [1]]],
                ["$or": "x"],
                ["$or": []],
                ["$and": [1]],
            ]
            for constraints in cases {
                let reply = try await client.get("/classes/Posts", query: ["where": constraints])
                Support.expectError(reply, status: 400, code: 102)
                #expect(reply["code"] == 102, "where \(constraints)")
            }
        }
    }

    @Test("an invalid field name in a query answers 105", arguments: TestStore.allCases)
    func invalidQueryField(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for field in ["a-b", "1x", "a..b", "x') OR 1=1 --"] {
                let reply = try await client.get("/classes/Posts", query: ["where": .object([field: 1])])
                Support.expectError(reply, status: 400, code: 105)
            }
            Support.expectError(try await client.get("/classes/Posts", query: ["order": "title;DROP"]), status: 400, code: 105)
        }
    }

    @Test("SQL-looking values are stored and read back verbatim, and match only themselves", arguments: TestStore.allCases)
    func injectionValues(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let nasty = "x'); DROP TABLE objects;--"
            let others = ["' OR '1'='1", "\"; DELETE FROM objects; --", "%_\\*", "Robert'); DROP TABLE Students;--"]
            let id = try await Support.create(client, "Posts", ["title": .string(nasty), "n": 1])
            for other in others { try await Support.create(client, "Posts", ["title": .string(other)]) }
            #expect(try await client.get("/classes/Posts/\(id)")["title"]?.stringValue == nasty)
            let found = try await client.get("/classes/Posts", query: ["where": ["title": .string(nasty)]])
            #expect(Support.ids(found) == [id])
            let orTrue = try await client.get("/classes/Posts", query: ["where": ["title": "' OR '1'='1"]])
            #expect(orTrue["results"]?.arrayValue?.count == 1)
            let inQuery = try await client.get("/classes/Posts", query: ["where": ["title": ["$in": [.string(nasty), "nope"]]]])
            #expect(Support.ids(inQuery) == [id])
            let regex = try await client.get("/classes/Posts", query: ["where": ["title": ["$regex": "DROP TABLE objects"]]])
            #expect(Support.ids(regex) == [id])
            #expect(try await Support.masterCount(client, "Posts") == 5)
            let updated = try await client.put("/classes/Posts/\(id)", ["title": .string(nasty + nasty)])
            #expect(updated.status == 200)
            #expect(try await client.get("/classes/Posts/\(id)")["title"]?.stringValue == nasty + nasty)
        }
    }

    @Test("SQL-looking class and field names are refused, and nothing is written", arguments: TestStore.allCases)
    func injectionNames(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "safe"])
            let badClass = try await client.post("/classes/Posts';DROP--", ["title": "x"])
            Support.expectError(badClass, status: 400, code: 103)
            let badField = try await client.post("/classes/Posts", ["title') VALUES (1);--": "x"])
            Support.expectError(badField, status: 400, code: 105)
            let badNested = try await client.post("/classes/Posts", ["meta": ["$.x": 1]])
            Support.expectError(badNested, status: 400, code: 105)
            let results = try await Support.masterResults(client, "Posts")
            #expect(results.count == 1)
            #expect(results.first?["title"] == "safe")
        }
    }

    @Test("an unknown route answers 404", arguments: TestStore.allCases)
    func unknownRoute(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.get("/nowhere")
            #expect(reply.status == 404)
        }
    }
}
