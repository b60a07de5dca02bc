import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Synchronization
import Testing

/// Records what hooks saw, across the tasks they run in.
final class HookLog: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// An error whose text must never reach a client.
struct SecretFailure: Error, CustomStringConvertible {
    var description: String { "connection string postgres://admin:hunter2@db" }
}

@Suite("Hooks through HTTP: beforeSave, afterSave, beforeDelete, functions")
struct HookPathTests {
    @Test("a beforeSave that changes fields: the create answer carries the changed fields, and they are stored")
    func beforeSaveChangesCreate() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in
            request.object["title"] = request.object["title"]?.stringValue.map { .string($0.uppercased()) }
            request.object["slug"] = "hooked"
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let created = try await client.post("/classes/Posts", ["title": "hello", "body": "text"])
            #expect(created.status == 201)
            #expect(created["title"] == "HELLO")
            #expect(created["slug"] == "hooked")
            #expect(created["body"] == nil, "an unchanged field is not echoed")
            let id = try #require(created["objectId"]?.stringValue)
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["title"] == "HELLO")
            #expect(fetched["slug"] == "hooked")
            #expect(fetched["body"] == "text")
        }
    }

    @Test("a beforeSave that changes fields on update: the answer carries them")
    func beforeSaveChangesUpdate() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in
            if let original = request.original {
                request.object["edits"] = .number((original["edits"]?.doubleValue ?? 0) + 1)
            } else {
                request.object["edits"] = 0
            }
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let id = try await Support.create(client, "Posts", ["title": "a"])
            let updated = try await client.put("/classes/Posts/\(id)", ["title": "b"])
            #expect(updated.status == 200)
            #expect(updated["edits"] == 1)
            #expect(Support.isParseDate(updated["updatedAt"]?.stringValue))
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["title"] == "b")
            #expect(fetched["edits"] == 1)
        }
    }

    @Test("a beforeSave that throws HookError.validation answers 400 code 142 with its message, and nothing is written")
    func beforeSaveValidation() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in
            guard let title = request.object["title"]?.stringValue, !title.isEmpty else {
                throw HookError.validation("title must not be empty")
            }
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let refused = try await client.post("/classes/Posts", ["title": ""])
            Support.expectError(refused, status: 400, code: 142)
            #expect(refused["error"] == "title must not be empty")
            #expect(try await Support.masterCount(client, "Posts") == 0)

            let id = try await Support.create(client, "Posts", ["title": "ok"])
            let refusedUpdate = try await client.put("/classes/Posts/\(id)", ["title": ""])
            Support.expectError(refusedUpdate, status: 400, code: 142)
            #expect(refusedUpdate["error"] == "title must not be empty")
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "ok")
        }
    }

    @Test("a beforeSave that throws a plain Swift error answers 141 with a generic message that does not leak it")
    func beforeSavePlainError() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { _ in throw SecretFailure() }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let reply = try await client.post("/classes/Posts", ["title": "x"])
            Support.expectClientError(reply)
            #expect(reply["code"] == 141)
            let message = try #require(reply["error"]?.stringValue)
            #expect(!message.contains("hunter2"))
            #expect(!message.contains("postgres"))
            #expect(!message.contains("SecretFailure"))
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a beforeSave that writes an invalid field is refused, and nothing is written")
    func beforeSaveInvalidOutput() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in request.object["$bad"] = 1 }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let reply = try await client.post("/classes/Posts", ["title": "x"])
            Support.expectClientError(reply)
            #expect(reply["code"] == 105)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a beforeSave hook for one class does not run for another")
    func beforeSaveScopedToClass() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { _ in throw HookError.validation("no posts") }
        try await ParseTestClient.withRouter(registry: registry) { client in
            #expect(try await client.post("/classes/Comments", ["text": "x"]).status == 201)
            Support.expectError(try await client.post("/classes/Posts", ["text": "x"]), status: 400, code: 142)
        }
    }

    @Test("a function answers {\"result\": …} with what the hook returns")
    func function() async throws {
        var registry = HookRegistry()
        registry.function("hello") { request in
            .string("Hello, \(request.params["name"]?.stringValue ?? "world")!")
        }
        registry.function("sum") { request in
            .number((request.params["numbers"]?.arrayValue ?? []).compactMap(\.doubleValue).reduce(0, +))
        }
        registry.function("echo") { request in .object(request.params) }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let hello = try await client.post("/functions/hello", ["name": "Ada"])
            #expect(hello.status == 200)
            #expect(hello.body == ["result": "Hello, Ada!"])
            #expect(try await client.post("/functions/hello").body == ["result": "Hello, world!"])
            #expect(try await client.post("/functions/sum", ["numbers": [1, 2, 3.5]]).body == ["result": 6.5])
            let echo = try await client.post("/functions/echo", ["a": [1, ["b": nil]], "c": true])
            #expect(echo.body == ["result": ["a": [1, ["b": nil]], "c": true]])
            Support.expectNotError(echo)
        }
    }

    @Test("a function hook may use the store")
    func functionUsesStore() async throws {
        var registry = HookRegistry()
        registry.function("countPosts") { request in
            .number(Double(try await request.store.count(ParseQuery("Posts"))))
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            try await Support.create(client, "Posts", ["title": "a"])
            try await Support.create(client, "Posts", ["title": "b"])
            try await Support.create(client, "Posts", ["title": "hidden", "ACL": [:]])
            #expect(try await client.post("/functions/countPosts").body == ["result": 2])
            #expect(try await client.post("/functions/countPosts", master: true).body == ["result": 3])
        }
    }

    @Test("a function that refuses answers its code and message; one that fails answers 141 without details")
    func functionErrors() async throws {
        var registry = HookRegistry()
        registry.function("refuse") { _ in throw HookError.validation("name is required") }
        registry.function("crash") { _ in throw SecretFailure() }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let refused = try await client.post("/functions/refuse")
            Support.expectError(refused, status: 400, code: 142)
            #expect(refused["error"] == "name is required")
            let crashed = try await client.post("/functions/crash")
            Support.expectClientError(crashed)
            #expect(crashed["code"] == 141)
            #expect(crashed["error"]?.stringValue?.contains("hunter2") == false)
        }
    }

    @Test("an unknown function answers 141")
    func unknownFunction() async throws {
        var registry = HookRegistry()
        registry.function("known") { _ in "ok" }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let reply = try await client.post("/functions/unknown")
            Support.expectError(reply, status: 400, code: 141)
            #expect(try await client.post("/functions/known").body == ["result": "ok"])
        }
    }

    @Test("functions need keys like every other route")
    func functionNeedsKeys() async throws {
        let log = HookLog()
        var registry = HookRegistry()
        registry.function("known") { _ in log.append("ran"); return "ok" }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let reply = try await client.raw(.post, "/functions/known", headers: [:], body: nil)
            Support.expectError(reply, status: 403, code: 119)
            #expect(log.all.isEmpty)
        }
    }

    @Test("an afterSave that throws does not fail the save: 201 and the object is stored")
    func afterSaveThrows() async throws {
        let log = HookLog()
        var registry = HookRegistry()
        registry.afterSave("Posts") { request in
            log.append(request.object.objectId ?? "no id")
            throw SecretFailure()
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let created = try await client.post("/classes/Posts", ["title": "x"])
            #expect(created.status == 201)
            Support.expectNotError(created)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "x")
            let updated = try await client.put("/classes/Posts/\(id)", ["title": "y"])
            #expect(updated.status == 200)
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "y")
            #expect(log.all == [id, id])
        }
    }

    @Test("an afterSave that refuses with a ParseError does not fail the save either")
    func afterSaveRefuses() async throws {
        var registry = HookRegistry()
        registry.afterSave("Posts") { _ in throw HookError.validation("too late to refuse") }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let created = try await client.post("/classes/Posts", ["title": "x"])
            #expect(created.status == 201)
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("a beforeDelete that refuses keeps the object")
    func beforeDeleteRefuses() async throws {
        var registry = HookRegistry()
        registry.beforeDelete("Posts") { request in
            if request.object["pinned"]?.boolValue == true { throw HookError.validation("pinned posts stay") }
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let pinned = try await Support.create(client, "Posts", ["title": "keep", "pinned": true])
            let loose = try await Support.create(client, "Posts", ["title": "go", "pinned": false])
            let refused = try await client.delete("/classes/Posts/\(pinned)")
            Support.expectError(refused, status: 400, code: 142)
            #expect(refused["error"] == "pinned posts stay")
            #expect(try await client.delete("/classes/Posts/\(loose)").status == 200)
            #expect(Support.ids(try await client.get("/classes/Posts")) == [pinned])
        }
    }

    @Test("hooks run for each operation of a batch, and a refusal is that operation's error entry")
    func hooksInBatch() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in
            if request.object["title"]?.stringValue == "bad" { throw HookError.validation("bad title") }
            request.object["checked"] = true
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "good"]],
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "bad"]],
                    ]
                ])
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 2)
            #expect(entries.first?["success"]?["checked"] == true)
            #expect(entries.last?["error"] == ["code": 142, "error": "bad title"])
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("hooks see whether the caller used the master key")
    func hookSeesMaster() async throws {
        var registry = HookRegistry()
        registry.beforeSave("Posts") { request in request.object["byMaster"] = .bool(request.isMaster) }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let asClient = try await client.post("/classes/Posts", ["title": "a"])
            let asMaster = try await client.post("/classes/Posts", ["title": "b"], master: true)
            #expect(asClient["byMaster"] == false)
            #expect(asMaster["byMaster"] == true)
        }
    }
}
