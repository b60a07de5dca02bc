import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("ACLs: public read and write flags, and the master key")
struct ACLTests {
    @Test("public read only: a client reads it but cannot change or delete it (101); master can", arguments: TestStore.allCases)
    func publicReadOnly(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/classes/Notes", ["text": "hello", "ACL": ["*": ["read": true]]])
            #expect(created.status == 201)
            let id = try #require(created["objectId"]?.stringValue)

            let fetched = try await client.get("/classes/Notes/\(id)")
            #expect(fetched.status == 200)
            #expect(fetched["text"] == "hello")
            #expect(fetched["ACL"] == ["*": ["read": true]])
            #expect(Support.ids(try await client.get("/classes/Notes")) == [id])

            let put = try await client.put("/classes/Notes/\(id)", ["text": "changed"])
            Support.expectError(put, status: 404, code: 101)
            let increment = try await client.put("/classes/Notes/\(id)", ["views": ["__op": "Increment", "amount": 1]])
            Support.expectError(increment, status: 404, code: 101)
            let delete = try await client.delete("/classes/Notes/\(id)")
            Support.expectError(delete, status: 404, code: 101)
            let after = try await client.get("/classes/Notes/\(id)", master: true)
            #expect(after["text"] == "hello")
            #expect(after["views"] == nil)
            #expect(after["updatedAt"] == fetched["updatedAt"])

            let masterPut = try await client.put("/classes/Notes/\(id)", ["text": "by master"], master: true)
            #expect(masterPut.status == 200)
            #expect(try await client.get("/classes/Notes/\(id)")["text"] == "by master")
            let masterDelete = try await client.delete("/classes/Notes/\(id)", master: true)
            #expect(masterDelete.status == 200)
            #expect(try await Support.masterCount(client, "Notes") == 0)
        }
    }

    @Test("a client cannot lift a read-only ACL by sending a new one", arguments: TestStore.allCases)
    func cannotReplaceACL(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "hello", "ACL": ["*": ["read": true]]])
            let reply = try await client.put("/classes/Notes/\(id)", ["ACL": ["*": ["read": true, "write": true]]])
            Support.expectError(reply, status: 404, code: 101)
            #expect(try await client.get("/classes/Notes/\(id)")["ACL"] == ["*": ["read": true]])
        }
    }

    @Test("ACL {} (nobody): invisible to client queries, counts and get (101), visible to master", arguments: TestStore.allCases)
    func nobody(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let hidden = try await Support.create(client, "Notes", ["text": "secret", "ACL": [:]])
            let visible = try await Support.create(client, "Notes", ["text": "public"])

            Support.expectError(try await client.get("/classes/Notes/\(hidden)"), status: 404, code: 101)
            let query = try await client.get("/classes/Notes", query: ["count": 1])
            #expect(Support.ids(query) == [visible])
            #expect(query["count"] == 1)
            let byId = try await client.get("/classes/Notes", query: ["where": ["objectId": .string(hidden)]])
            #expect(byId["results"] == [])
            let byText = try await client.get("/classes/Notes", query: ["where": ["text": "secret"]])
            #expect(byText["results"] == [])
            Support.expectError(try await client.put("/classes/Notes/\(hidden)", ["text": "x"]), status: 404, code: 101)
            Support.expectError(try await client.delete("/classes/Notes/\(hidden)"), status: 404, code: 101)

            let asMaster = try await client.get("/classes/Notes/\(hidden)", master: true)
            #expect(asMaster.status == 200)
            #expect(asMaster["text"] == "secret")
            #expect(asMaster["ACL"] == .object([:]))
            let masterQuery = try await client.get("/classes/Notes", query: ["count": 1], master: true)
            #expect(Set(Support.ids(masterQuery)) == [hidden, visible])
            #expect(masterQuery["count"] == 2)
        }
    }

    @Test("an ACL naming only a user hides the object from a client without a session", arguments: TestStore.allCases)
    func userOnly(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "mine", "ACL": ["user1": ["read": true, "write": true]]])
            Support.expectError(try await client.get("/classes/Notes/\(id)"), status: 404, code: 101)
            #expect(try await client.get("/classes/Notes")["results"] == [])
            #expect(try await client.get("/classes/Notes/\(id)", master: true)["text"] == "mine")
        }
    }

    @Test("objects without an ACL are public: read, update and delete by a client", arguments: TestStore.allCases)
    func noACL(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "open"])
            let fetched = try await client.get("/classes/Notes/\(id)")
            #expect(fetched["text"] == "open")
            #expect(fetched["ACL"] == nil)
            #expect(Support.ids(try await client.get("/classes/Notes")) == [id])
            #expect(try await client.put("/classes/Notes/\(id)", ["text": "edited"]).status == 200)
            #expect(try await client.get("/classes/Notes/\(id)")["text"] == "edited")
            #expect(try await client.delete("/classes/Notes/\(id)").status == 200)
            #expect(try await Support.masterCount(client, "Notes") == 0)
        }
    }

    @Test("public read and write: a client may do everything", arguments: TestStore.allCases)
    func publicReadWrite(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "open", "ACL": ["*": ["read": true, "write": true]]])
            #expect(try await client.put("/classes/Notes/\(id)", ["text": "edited"]).status == 200)
            #expect(try await client.get("/classes/Notes/\(id)")["text"] == "edited")
            #expect(try await client.delete("/classes/Notes/\(id)").status == 200)
            #expect(try await Support.masterCount(client, "Notes") == 0)
        }
    }

    @Test("public write without read: a client may update and delete what it cannot read, as in Parse", arguments: TestStore.allCases)
    func publicWriteOnly(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "drop box", "ACL": ["*": ["write": true]]])
            Support.expectError(try await client.get("/classes/Notes/\(id)"), status: 404, code: 101)
            #expect(try await client.get("/classes/Notes")["results"] == [])
            let put = try await client.put("/classes/Notes/\(id)", ["text": "dropped"])
            #expect(put.status == 200, "\(put.body)")
            #expect(try await client.get("/classes/Notes/\(id)", master: true)["text"] == "dropped")
            let delete = try await client.delete("/classes/Notes/\(id)")
            #expect(delete.status == 200, "\(delete.body)")
            #expect(try await Support.masterCount(client, "Notes") == 0)
        }
    }

    @Test("a client may lock an object it can write, after which it cannot write it any more", arguments: TestStore.allCases)
    func lockAfterWrite(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Notes", ["text": "open"])
            let lock = try await client.put("/classes/Notes/\(id)", ["ACL": ["*": ["read": true]]])
            #expect(lock.status == 200)
            Support.expectError(try await client.put("/classes/Notes/\(id)", ["text": "x"]), status: 404, code: 101)
            #expect(try await client.get("/classes/Notes/\(id)")["text"] == "open")
        }
    }

    @Test("a malformed ACL answers 111 and stores nothing", arguments: [
        "public", ["*": true], ["*": ["read": "yes"]], ["*": ["read": true, "delete": true]], ["": ["read": true]],
    ] as [ParseValue])
    func malformedACL(acl: ParseValue) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post("/classes/Notes", ["text": "x", "ACL": acl])
            Support.expectError(reply, status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Notes") == 0)
        }
    }

    @Test("include does not reveal a pointed-to object the client may not read", arguments: TestStore.allCases)
    func includeRespectsACL(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let secret = try await Support.create(client, "Authors", ["name": "hidden", "ACL": [:]])
            let pointer = ParseValue.pointer(className: "Authors", objectId: secret)
            try await Support.create(client, "Books", ["title": "One", "author": pointer])
            let reply = try await client.get("/classes/Books", query: ["include": "author"])
            #expect(reply.status == 200)
            let author = reply["results"]?.arrayValue?.first?["author"]
            #expect(author?["name"] == nil)
            #expect(author == pointer)
            let asMaster = try await client.get("/classes/Books", query: ["include": "author"], master: true)
            #expect(asMaster["results"]?.arrayValue?.first?["author"]?["name"] == "hidden")
        }
    }
}
