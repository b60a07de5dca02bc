import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Field operations: Increment, Add, AddUnique, Remove, Delete")
struct FieldOperationTests {
    @Test("Increment adds to the stored number and the update answers the new value", arguments: TestStore.allCases)
    func increment(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Counters", ["score": 3])
            let first = try await client.put("/classes/Counters/\(id)", ["score": ["__op": "Increment", "amount": 2]])
            #expect(first.status == 200)
            #expect(first["score"] == 5)
            #expect(Support.isParseDate(first["updatedAt"]?.stringValue))
            let second = try await client.put("/classes/Counters/\(id)", ["score": ["__op": "Increment", "amount": -10]])
            #expect(second["score"] == -5)
            #expect(try await client.get("/classes/Counters/\(id)")["score"] == -5)
        }
    }

    @Test("Increment of a missing field starts from zero", arguments: TestStore.allCases)
    func incrementMissing(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Counters", ["name": "x"])
            let reply = try await client.put("/classes/Counters/\(id)", ["hits": ["__op": "Increment", "amount": 1.5]])
            #expect(reply.status == 200)
            #expect(reply["hits"] == 1.5)
            #expect(try await client.get("/classes/Counters/\(id)")["hits"] == 1.5)
        }
    }

    @Test("Increment on create sets the amount", arguments: TestStore.allCases)
    func incrementOnCreate(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/classes/Counters", ["hits": ["__op": "Increment", "amount": 7]])
            #expect(created.status == 201)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await client.get("/classes/Counters/\(id)")["hits"] == 7)
        }
    }

    @Test("successive increments all count", arguments: TestStore.allCases)
    func incrementsAccumulate(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Counters", ["score": 0])
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await client.put("/classes/Counters/\(id)", ["score": ["__op": "Increment", "amount": 1]]).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(try await client.get("/classes/Counters/\(id)")["score"] == 10)
        }
    }

    @Test("Add appends, keeping duplicates", arguments: TestStore.allCases)
    func add(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["tags": ["a", "b"]])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "Add", "objects": ["b", "c"]]])
            #expect(reply.status == 200)
            #expect(reply["tags"] == ["a", "b", "b", "c"])
            #expect(try await client.get("/classes/Lists/\(id)")["tags"] == ["a", "b", "b", "c"])
        }
    }

    @Test("AddUnique appends only what is not there yet", arguments: TestStore.allCases)
    func addUnique(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["tags": ["a", "b"]])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "AddUnique", "objects": ["b", "c", "c"]]])
            #expect(reply.status == 200)
            #expect(reply["tags"] == ["a", "b", "c"])
            #expect(try await client.get("/classes/Lists/\(id)")["tags"] == ["a", "b", "c"])
        }
    }

    @Test("Remove takes every occurrence out", arguments: TestStore.allCases)
    func remove(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["tags": ["a", "b", "a", "c"]])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "Remove", "objects": ["a", "z"]]])
            #expect(reply.status == 200)
            #expect(reply["tags"] == ["b", "c"])
            #expect(try await client.get("/classes/Lists/\(id)")["tags"] == ["b", "c"])
        }
    }

    @Test("Add on a missing field makes an array", arguments: TestStore.allCases)
    func addMissing(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["name": "x"])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "Add", "objects": [1, 2]]])
            #expect(reply["tags"] == [1, 2])
            #expect(try await client.get("/classes/Lists/\(id)")["tags"] == [1, 2])
        }
    }

    @Test("Delete removes the field", arguments: TestStore.allCases)
    func delete(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["name": "x", "tags": ["a"]])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "Delete"]])
            #expect(reply.status == 200)
            let fetched = try await client.get("/classes/Lists/\(id)")
            #expect(fetched["tags"] == nil)
            #expect(fetched["name"] == "x")
            let withTags = try await client.get("/classes/Lists", query: ["where": ["tags": ["$exists": true]]])
            #expect(withTags["results"] == [])
        }
    }

    @Test("several operations in one update all apply and all are answered", arguments: TestStore.allCases)
    func several(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Mixed", ["n": 1, "tags": ["a"], "gone": "x", "name": "old"])
            let reply = try await client.put(
                "/classes/Mixed/\(id)",
                [
                    "n": ["__op": "Increment", "amount": 4], "tags": ["__op": "AddUnique", "objects": ["a", "b"]],
                    "gone": ["__op": "Delete"], "name": "new",
                ])
            #expect(reply.status == 200)
            #expect(reply["n"] == 5)
            #expect(reply["tags"] == ["a", "b"])
            let fetched = try await client.get("/classes/Mixed/\(id)")
            #expect(fetched["n"] == 5)
            #expect(fetched["tags"] == ["a", "b"])
            #expect(fetched["gone"] == nil)
            #expect(fetched["name"] == "new")
        }
    }

    @Test("Increment on a string field answers 111 and changes nothing", arguments: TestStore.allCases)
    func incrementString(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Counters", ["score": "high", "other": 1])
            let reply = try await client.put(
                "/classes/Counters/\(id)", ["score": ["__op": "Increment", "amount": 1], "other": 2])
            Support.expectError(reply, status: 400, code: 111)
            let fetched = try await client.get("/classes/Counters/\(id)")
            #expect(fetched["score"] == "high")
            #expect(fetched["other"] == 1)
        }
    }

    @Test("Add on a non-array field answers 111", arguments: TestStore.allCases)
    func addToString(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Lists", ["tags": "a"])
            let reply = try await client.put("/classes/Lists/\(id)", ["tags": ["__op": "Add", "objects": ["b"]]])
            Support.expectError(reply, status: 400, code: 111)
            #expect(try await client.get("/classes/Lists/\(id)")["tags"] == "a")
        }
    }

    @Test("malformed operations answer 111", arguments: TestStore.allCases)
    func malformed(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Counters", ["score": 1, "tags": ["a"]])
            Support.expectError(
                try await client.put("/classes/Counters/\(id)", ["score": ["__op": "Increment", "amount": "1"]]), status: 400, code: 111)
            Support.expectError(
                try await client.put("/classes/Counters/\(id)", ["score": ["__op": "Increment"]]), status: 400, code: 111)
            Support.expectError(
                try await client.put("/classes/Counters/\(id)", ["tags": ["__op": "Add", "objects": "b"]]), status: 400, code: 111)
            let fetched = try await client.get("/classes/Counters/\(id)")
            #expect(fetched["score"] == 1)
            #expect(fetched["tags"] == ["a"])
        }
    }
}
