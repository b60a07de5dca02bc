import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

@Suite("Object routes: create, get, update, delete")
struct ObjectRoutesTests {
    @Test("POST /classes/X answers 201 with a 10-character objectId, a Parse createdAt and a Location", arguments: TestStore.allCases)
    func create(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/classes/Posts", ["title": "Hi", "score": 3])
            #expect(created.status == 201)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(id.count == 10)
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            let createdAt = created["createdAt"]?.stringValue
            #expect(Support.isParseDate(createdAt), "createdAt \(String(describing: createdAt))")
            #expect(created.headers[.location] == "/parse/classes/Posts/\(id)")
            // The create answer is objectId and createdAt only: the client's own fields are not echoed.
            #expect(created["title"] == nil)
            #expect(created["score"] == nil)
            Support.expectNotError(created)
        }
    }

    @Test("two creates give different ids", arguments: TestStore.allCases)
    func idsAreDistinct(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var ids: Set<String> = []
            for index in 0..<20 { ids.insert(try await Support.create(client, "Posts", ["n": .number(Double(index))])) }
            #expect(ids.count == 20)
            #expect(try await Support.masterCount(client, "Posts") == 20)
        }
    }

    @Test("GET /classes/X/id answers every field plus objectId, createdAt and updatedAt", arguments: TestStore.allCases)
    func get(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post(
                "/classes/Posts", ["title": "Hi", "score": 3, "tags": ["a", "b"], "meta": ["x": 1, "y": ["z": true]], "none": nil])
            let id = try #require(created["objectId"]?.stringValue)
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched.status == 200)
            #expect(fetched["objectId"]?.stringValue == id)
            #expect(fetched["title"] == "Hi")
            #expect(fetched["score"] == 3)
            #expect(fetched["tags"] == ["a", "b"])
            #expect(fetched["meta"] == ["x": 1, "y": ["z": true]])
            #expect(fetched["createdAt"] == created["createdAt"])
            #expect(Support.isParseDate(fetched["updatedAt"]?.stringValue))
            #expect(fetched["updatedAt"] == fetched["createdAt"])
            let keys = Set(fetched.body.objectValue?.keys.map { $0 } ?? [])
            #expect(keys.isSuperset(of: ["objectId", "createdAt", "updatedAt", "title", "score", "tags", "meta"]))
            Support.expectNotError(fetched)
        }
    }

    @Test("PUT /classes/X/id answers 200 with updatedAt, and the change is stored", arguments: TestStore.allCases)
    func update(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi", "score": 3])
            let before = try await client.get("/classes/Posts/\(id)")
            let updated = try await client.put("/classes/Posts/\(id)", ["title": "Bye"])
            #expect(updated.status == 200)
            let updatedAt = try #require(updated["updatedAt"]?.stringValue)
            #expect(Support.isParseDate(updatedAt))
            #expect(updatedAt >= (before["updatedAt"]?.stringValue ?? ""))
            #expect(updated["createdAt"] == nil)
            #expect(updated["title"] == nil, "a plain set is not echoed")
            Support.expectNotError(updated)
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["title"] == "Bye")
            #expect(fetched["score"] == 3)
            #expect(fetched["updatedAt"]?.stringValue == updatedAt)
            #expect(fetched["createdAt"] == before["createdAt"])
        }
    }

    @Test("PUT of an unknown object answers 404 code 101 and creates nothing", arguments: TestStore.allCases)
    func updateUnknown(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "Hi"])
            let reply = try await client.put("/classes/Posts/nosuchid00", ["title": "Bye"])
            Support.expectError(reply, status: 404, code: 101)
            let all = try await Support.masterResults(client, "Posts")
            #expect(all.count == 1)
            #expect(all.first?["title"] == "Hi")
        }
    }

    @Test("DELETE answers 200 {} and then the object is gone: 404 code 101", arguments: TestStore.allCases)
    func delete(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi"])
            let keep = try await Support.create(client, "Posts", ["title": "Keep"])
            let deleted = try await client.delete("/classes/Posts/\(id)")
            #expect(deleted.status == 200)
            #expect(deleted.body == .object([:]))
            let fetched = try await client.get("/classes/Posts/\(id)")
            Support.expectError(fetched, status: 404, code: 101)
            let again = try await client.delete("/classes/Posts/\(id)")
            Support.expectError(again, status: 404, code: 101)
            #expect(Support.ids(try await client.get("/classes/Posts")) == [keep])
        }
    }

    @Test("GET of an unknown id answers 404 code 101", arguments: TestStore.allCases)
    func getUnknown(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.get("/classes/Posts/nosuchid00"), status: 404, code: 101)
            try await Support.create(client, "Posts", ["title": "Hi"])
            Support.expectError(try await client.get("/classes/Posts/nosuchid00"), status: 404, code: 101)
            Support.expectError(try await client.get("/classes/Posts/nosuchid00", master: true), status: 404, code: 101)
        }
    }

    @Test("an object is found only under its own class", arguments: TestStore.allCases)
    func classesAreSeparate(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi"])
            Support.expectError(try await client.get("/classes/Comments/\(id)"), status: 404, code: 101)
            #expect(try await Support.masterCount(client, "Comments") == 0)
        }
    }

    @Test("objectId, createdAt and updatedAt sent by the client do not override the server's", arguments: TestStore.allCases)
    func serverOwnsIdentity(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post(
                "/classes/Posts", ["title": "Hi", "createdAt": "2000-01-01T00:00:00.000Z", "updatedAt": "2000-01-01T00:00:00.000Z"])
            #expect(created.status == 201)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(created["createdAt"]?.stringValue != "2000-01-01T00:00:00.000Z")
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["createdAt"]?.stringValue != "2000-01-01T00:00:00.000Z")
            #expect(fetched["updatedAt"]?.stringValue != "2000-01-01T00:00:00.000Z")
        }
    }

    @Test("a method a route does not serve answers 405 with a Parse error body", arguments: TestStore.allCases)
    func wrongMethod(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "Hi"])
            let reply = try await client.request(.post, "/classes/Posts/\(id)", body: ["title": "Bye"])
            Support.expectError(reply, status: 405, code: 119)
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "Hi")
        }
    }
}
