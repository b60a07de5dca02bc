import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

/// `POST /batch` with `"transaction": true`: every operation commits in one transaction or none
/// does, the first failure answered as the batch's error; after hooks run once it has committed.
@Suite("POST /batch with transaction")
struct TransactionalBatchTests {
    /// `Orders` refuses a negative amount in its beforeSave; `afterSave` and `afterDelete` on
    /// `Orders` record the object's id in `log` with how many orders are stored then.
    static func hooks(_ log: HookLog) -> HookRegistry {
        var hooks = HookRegistry()
        hooks.beforeSave("Orders") { request in
            if (request.object["amount"]?.doubleValue ?? 0) < 0 { throw HookError.validation("amount must not be negative") }
        }
        hooks.afterSave("Orders") { request in
            let stored = try await request.store.asMaster.count(ParseQuery("Orders"))
            log.append("saved \(request.object.objectId ?? "?") of \(stored)")
        }
        hooks.afterDelete("Orders") { request in log.append("deleted \(request.object.objectId ?? "?")") }
        return hooks
    }

    static func operation(_ method: String, _ path: String, _ body: [String: ParseValue]? = nil) -> ParseValue {
        var operation: [String: ParseValue] = ["method": .string(method), "path": .string("/parse" + path)]
        if let body { operation["body"] = .object(body) }
        return .object(operation)
    }

    static func transaction(_ client: ParseTestClient, _ operations: [ParseValue], master: Bool = false) async throws -> ParseTestClient.Reply {
        try await client.post("/batch", ["requests": .array(operations), "transaction": true], master: master)
    }

    @Test("the issue's example: one of three refused by a beforeSave, none is stored and the refusal is the answer")
    func refusedByABeforeSave() async throws {
        let log = HookLog()
        try await ParseTestClient.withRouter(registry: Self.hooks(log)) { client in
            let operations = [
                Self.operation("POST", "/classes/Orders", ["amount": 1]),
                Self.operation("POST", "/classes/Orders", ["amount": -5]),
                Self.operation("POST", "/classes/Orders", ["amount": 3]),
            ]
            let reply = try await Self.transaction(client, operations)
            Support.expectError(reply, status: 400, code: 142)
            #expect(reply["error"] == "amount must not be negative")
            #expect(try await Support.masterCount(client, "Orders") == 0)
            #expect(log.all.isEmpty, "no after hook ran: \(log.all)")
            // Without the flag the batch behaves as before: the other two are stored.
            let plain = try await client.post("/batch", ["requests": .array(operations)])
            #expect(plain.status == 200)
            #expect(plain.body.arrayValue?[1]["error"]?["code"] == 142)
            #expect(try await Support.masterCount(client, "Orders") == 2)
        }
    }

    @Test("all committed: success entries in order, and each after hook ran once, after the whole commit")
    func committed() async throws {
        let log = HookLog()
        try await ParseTestClient.withRouter(registry: Self.hooks(log)) { client in
            let gone = try await Support.create(client, "Orders", ["amount": 9])
            let kept = try await Support.create(client, "Orders", ["amount": 1])
            let before = log.all.count
            let reply = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/classes/Orders", ["amount": 2]),
                    Self.operation("PUT", "/classes/Orders/\(kept)", ["amount": ["__op": "Increment", "amount": 10]]),
                    Self.operation("DELETE", "/classes/Orders/\(gone)"),
                    Self.operation("GET", "/classes/Orders/\(kept)"),
                ])
            #expect(reply.status == 200, "\(reply.body)")
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 4)
            let created = try #require(entries[0]["success"]?["objectId"]?.stringValue)
            #expect(entries[1]["success"]?["amount"] == 11)
            #expect(entries[2]["success"] == .object([:]))
            #expect(entries[3]["success"]?["amount"] == 1, "a read sees the objects as stored before the batch")
            #expect(try await client.get("/classes/Orders/\(kept)")["amount"] == 11)
            #expect(try await Support.masterCount(client, "Orders") == 2)
            let ran = Array(log.all.dropFirst(before)).sorted()
            #expect(ran == ["deleted \(gone)", "saved \(created) of 2", "saved \(kept) of 2"].sorted())
            // A later save runs its own hook only: none of the batch's ran again.
            _ = try await Support.create(client, "Orders", ["amount": 4])
            #expect(log.all.count == before + 4)
        }
    }

    @Test("updates and deletes are rolled back when a later operation fails, and their after hooks never run")
    func updatesAndDeletesRolledBack() async throws {
        let log = HookLog()
        try await ParseTestClient.withRouter(registry: Self.hooks(log)) { client in
            let updated = try await Support.create(client, "Orders", ["amount": 1])
            let deleted = try await Support.create(client, "Orders", ["amount": 2])
            let before = log.all
            let reply = try await Self.transaction(
                client,
                [
                    Self.operation("PUT", "/classes/Orders/\(updated)", ["amount": ["__op": "Increment", "amount": 5]]),
                    Self.operation("DELETE", "/classes/Orders/\(deleted)"),
                    Self.operation("PUT", "/classes/Orders/nosuchid00", ["amount": 1]),
                ])
            Support.expectError(reply, status: 404, code: 101)
            #expect(try await client.get("/classes/Orders/\(updated)")["amount"] == 1)
            #expect(try await client.get("/classes/Orders/\(deleted)")["amount"] == 2)
            #expect(log.all == before)
        }
    }

    @Test("a write refused inside the transaction (an ACL, a field's type) rolls back the writes before it", arguments: TestStore.allCases)
    func refusedInsideTheTransaction(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let locked = try await Support.create(client, "Notes", ["n": 1, "ACL": ["*": ["read": true]]], master: true)
            let byACL = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/classes/Notes", ["n": 2]),
                    Self.operation("PUT", "/classes/Notes/\(locked)", ["n": 3]),
                ])
            Support.expectError(byACL, status: 404, code: 101)
            let byType = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/classes/Notes", ["n": 4]),
                    Self.operation("POST", "/classes/Notes", ["n": "four"]),
                ])
            Support.expectError(byType, status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Notes") == 1)
            #expect(try await client.get("/classes/Notes/\(locked)")["n"] == 1)
        }
    }

    @Test("mixed classes and a sign-up commit together: the new user can log in", arguments: TestStore.allCases)
    func signUpInside(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let reply = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/users", ["username": "ada", "password": "pw"]),
                    Self.operation("POST", "/classes/Profiles", ["bio": "hi"]),
                    Self.operation("POST", "/classes/Posts", ["title": "first"]),
                ])
            #expect(reply.status == 200, "\(reply.body)")
            let token = try #require(reply.body.arrayValue?[0]["success"]?["sessionToken"]?.stringValue)
            #expect(try await client.get("/users/me", sessionToken: token)["username"] == "ada")
            #expect(try await client.post("/login", ["username": "ada", "password": "pw"]).status == 200)
            #expect(try await Support.masterCount(client, "Profiles") == 1)
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("a rolled-back sign-up leaves no user to log in as; two sign-ups with one name are 202 and neither is stored", arguments: TestStore.allCases)
    func signUpRolledBack(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let reply = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/users", ["username": "bob", "password": "pw"]),
                    Self.operation("POST", "/classes/Profiles", ["$bad": 1]),
                ])
            Support.expectError(reply, status: 400, code: 105)
            Support.expectError(try await client.post("/login", ["username": "bob", "password": "pw"]), status: 404, code: 101)
            let twice = try await Self.transaction(
                client,
                [
                    Self.operation("POST", "/users", ["username": "cy", "password": "pw"]),
                    Self.operation("POST", "/users", ["username": "cy", "password": "other"]),
                ])
            Support.expectError(twice, status: 400, code: 202)
            #expect(try await Support.masterCount(client, "_User") == 0)
        }
    }

    @Test("a route whose effects a transaction cannot hold answers 107 before any operation runs")
    func routesOutsideTransactions() async throws {
        let log = HookLog()
        var hooks = HookRegistry()
        hooks.function("tally") { _ in log.append("ran"); return 1 }
        try await ParseTestClient.withRouter(registry: hooks) { client in
            let reply = try await Self.transaction(
                client, [Self.operation("POST", "/classes/Posts", ["title": "x"]), Self.operation("POST", "/functions/tally", [:])])
            Support.expectError(reply, status: 400, code: 107)
            let unroutable = try await Self.transaction(
                client, [Self.operation("POST", "/classes/Posts", ["title": "x"]), Self.operation("POST", "/nowhere", [:])])
            Support.expectError(unroutable, status: 400, code: 107)
            #expect(log.all.isEmpty)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }
}
