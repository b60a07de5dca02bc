import Cloudlet
import CloudletRuntime
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

/// Class-level permissions through the router, on real SQLite: each operation granted and refused
/// per entry kind, on every path (REST, batch, include, inner queries, counts).
@Suite("Class-level permissions")
struct ClassLevelPermissionTests {
    /// Sets `clp` on `className` (made with a `title`, an `owner` pointer and a `readers` array).
    static func lock(_ client: ParseTestClient, _ className: String, _ clp: ParseValue) async throws {
        let body: [String: ParseValue] = [
            "fields": ["title": ["type": "String"], "owner": ["type": "Pointer", "targetClass": "_User"], "readers": ["type": "Array"]],
            "classLevelPermissions": clp,
        ]
        let reply = try await client.post("/schemas/\(className)", body, master: true)
        #expect(reply.status == 200, "\(reply.body)")
    }

    static func signUp(_ client: ParseTestClient, _ name: String) async throws -> (id: String, token: String) {
        let reply = try await client.post("/users", ["username": .string(name), "password": "pw"])
        return (try #require(reply["objectId"]?.stringValue), try #require(reply["sessionToken"]?.stringValue))
    }

    @Test("each operation refused when the CLPs leave it out, granted to the entries they name; the master key passes", arguments: TestStore.allCases)
    func eachOperation(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ada = try await Self.signUp(client, "ada"), bob = try await Self.signUp(client, "bob")
            try await Self.lock(client, "Vault", [
                "get": [ada.id: true], "find": [ada.id: true], "count": [ada.id: true],
                "create": [ada.id: true], "update": [ada.id: true], "delete": [ada.id: true],
            ])
            let id = try await Support.create(client, "Vault", ["title": "gold"], master: true)
            func denied(_ reply: ParseTestClient.Reply, _ action: String) {
                Support.expectError(reply, status: 403, code: 119)
                #expect(reply["error"]?.stringValue == "Permission denied for action \(action) on class Vault.")
            }
            for token in [nil, bob.token] {
                denied(try await client.get("/classes/Vault/\(id)", sessionToken: token), "get")
                denied(try await client.get("/classes/Vault", sessionToken: token), "find")
                denied(try await client.get("/classes/Vault", query: ["count": 1, "limit": 0], sessionToken: token), "count")
                denied(try await client.post("/classes/Vault", ["title": "x"], sessionToken: token), "create")
                denied(try await client.put("/classes/Vault/\(id)", ["title": "x"], sessionToken: token), "update")
                denied(try await client.delete("/classes/Vault/\(id)", sessionToken: token), "delete")
            }
            #expect(try await client.get("/classes/Vault/\(id)", sessionToken: ada.token)["title"] == "gold")
            #expect(Support.ids(try await client.get("/classes/Vault", sessionToken: ada.token)) == [id])
            #expect(try await client.get("/classes/Vault", query: ["count": 1, "limit": 0], sessionToken: ada.token)["count"] == 1)
            #expect(try await client.post("/classes/Vault", ["title": "silver"], sessionToken: ada.token).status == 201)
            #expect(try await client.put("/classes/Vault/\(id)", ["title": "gilt"], sessionToken: ada.token).status == 200)
            #expect(try await client.delete("/classes/Vault/\(id)", sessionToken: ada.token).status == 200)
            #expect(try await Support.masterCount(client, "Vault") == 1, "the master key is not bound by CLPs")
        }
    }

    @Test("requiresAuthentication: 101 without a session, granted with one; role: entries grant members of the role", arguments: TestStore.allCases)
    func authenticationAndRoles(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ada = try await Self.signUp(client, "ada"), bob = try await Self.signUp(client, "bob")
            let role = try await client.post(
                "/roles", ["name": "Editors", "ACL": ["*": ["read": true]], "users": ["__op": "AddRelation", "objects": [.pointer(className: "_User", objectId: bob.id)]]],
                master: true)
            #expect(role.status == 201, "\(role.body)")
            try await Self.lock(client, "Drafts", ["find": ["requiresAuthentication": true], "get": ["requiresAuthentication": true], "create": ["role:Editors": true]])
            try await Support.create(client, "Drafts", ["title": "t"], master: true)
            let anonymous = try await client.get("/classes/Drafts")
            Support.expectError(anonymous, status: 404, code: 101)
            #expect(anonymous["error"] == "Permission denied, user needs to be authenticated.")
            #expect(Support.ids(try await client.get("/classes/Drafts", sessionToken: ada.token)).count == 1)
            Support.expectError(try await client.post("/classes/Drafts", ["title": "x"], sessionToken: ada.token), status: 403, code: 119)
            #expect(try await client.post("/classes/Drafts", ["title": "x"], sessionToken: bob.token).status == 201)
        }
    }

    @Test("pointerFields and readUserFields/writeUserFields: each user reaches the objects that point at it", arguments: TestStore.allCases)
    func pointerPermissions(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ada = try await Self.signUp(client, "ada"), bob = try await Self.signUp(client, "bob")
            try await Self.lock(client, "Letters", [
                "find": ["pointerFields": ["owner"]], "get": ["pointerFields": ["owner"]], "count": [:], "create": ["*": true],
                "readUserFields": ["readers"], "writeUserFields": ["owner"], "update": [:], "delete": [:],
            ])
            let adaPointer = ParseValue.pointer(className: "_User", objectId: ada.id), bobPointer = ParseValue.pointer(className: "_User", objectId: bob.id)
            let adas = try await Support.create(client, "Letters", ["title": "to ada", "owner": adaPointer], master: true)
            let shared = try await Support.create(client, "Letters", ["title": "shared", "owner": bobPointer, "readers": [adaPointer]], master: true)
            #expect(Set(Support.ids(try await client.get("/classes/Letters", sessionToken: ada.token))) == [adas, shared])
            #expect(Support.ids(try await client.get("/classes/Letters", sessionToken: bob.token)) == [shared])
            #expect(Support.ids(try await client.get("/classes/Letters")).isEmpty, "no user, no object")
            Support.expectError(try await client.get("/classes/Letters/\(adas)", sessionToken: bob.token), status: 404, code: 101)
            #expect(try await client.get("/classes/Letters/\(adas)", sessionToken: ada.token)["title"] == "to ada")
            #expect(try await client.get("/classes/Letters", query: ["count": 1, "limit": 0], sessionToken: ada.token)["count"] == 1, "readUserFields grant count")

            Support.expectError(try await client.put("/classes/Letters/\(shared)", ["title": "x"], sessionToken: ada.token), status: 404, code: 101)
            #expect(try await client.put("/classes/Letters/\(shared)", ["title": "mine"], sessionToken: bob.token).status == 200)
            Support.expectError(try await client.delete("/classes/Letters/\(adas)", sessionToken: bob.token), status: 404, code: 101)
            #expect(try await client.delete("/classes/Letters/\(adas)", sessionToken: ada.token).status == 200)
            #expect(try await Support.masterCount(client, "Letters") == 1)

            // An inner query on the class finds only what the user may find there.
            let reply = try await Support.create(client, "Replies", ["letter": .pointer(className: "Letters", objectId: shared)], master: true)
            let inQuery = #"{"letter":{"$inQuery":{"className":"Letters","where":{}}}}"#
            #expect(Support.ids(try await client.get("/classes/Replies", query: ["where": .string(inQuery)], sessionToken: bob.token)) == [reply])
            #expect(Support.ids(try await client.get("/classes/Replies", query: ["where": .string(inQuery)])).isEmpty)
            let outsider = try await Self.signUp(client, "cy")
            #expect(Support.ids(try await client.get("/classes/Replies", query: ["where": .string(inQuery)], sessionToken: outsider.token)).isEmpty)
        }
    }

    @Test("protectedFields per *, role, user id and userField:, merged with the app's own (a user's email)", arguments: TestStore.allCases)
    func protectedFields(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ada = try await Self.signUp(client, "ada"), bob = try await Self.signUp(client, "bob")
            try await Self.lock(client, "Cards", [
                "find": ["*": true], "get": ["*": true],
                "protectedFields": ["*": ["title", "readers"], bob.id: ["readers"], "userField:owner": []],
            ])
            let id = try await Support.create(
                client, "Cards", ["title": "secret", "readers": [], "owner": .pointer(className: "_User", objectId: ada.id)], master: true)
            let anonymous = try await client.get("/classes/Cards/\(id)")
            #expect(anonymous["title"] == nil && anonymous["readers"] == nil && anonymous["owner"] != nil)
            let asBob = try await client.get("/classes/Cards/\(id)", sessionToken: bob.token)
            #expect(asBob["title"] == "secret" && asBob["readers"] == nil, "bob's own entry shows the title: \(asBob.body)")
            let asAda = try await client.get("/classes/Cards/\(id)", sessionToken: ada.token)
            #expect(asAda["title"] == "secret" && asAda["readers"] == [], "the owner sees everything: \(asAda.body)")
            Support.expectError(try await client.get("/classes/Cards", query: ["where": #"{"title":"secret"}"#]), status: 403, code: 119)

            _ = try await client.put("/users/\(ada.id)", ["email": "ada@example.com"], sessionToken: ada.token)
            #expect(try await client.get("/users/\(ada.id)", sessionToken: bob.token)["email"] == nil, "the app's protected fields still hold")
        }
    }

    @Test("include leaves pointers to a class the caller may not get; inner queries need find on their class; batch obeys CLPs", arguments: TestStore.allCases)
    func includeInnerQueriesAndBatch(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.lock(client, "Secrets", ["find": [:], "get": [:]])
            let secret = try await Support.create(client, "Secrets", ["title": "s"], master: true)
            let post = try await Support.create(client, "Posts", ["secret": .pointer(className: "Secrets", objectId: secret)])
            let included = try await client.get("/classes/Posts", query: ["include": "secret"])
            #expect(included["results"]?.arrayValue?.first?["secret"] == .pointer(className: "Secrets", objectId: secret), "\(included.body)")
            let asMaster = try await client.get("/classes/Posts", query: ["include": "secret"], master: true)
            #expect(asMaster["results"]?.arrayValue?.first?["secret"]?["title"] == "s")

            let inQuery = #"{"secret":{"$inQuery":{"className":"Secrets","where":{}}}}"#
            Support.expectError(try await client.get("/classes/Posts", query: ["where": .string(inQuery)]), status: 403, code: 119)
            let select = #"{"title":{"$select":{"query":{"className":"Secrets","where":{}},"key":"title"}}}"#
            Support.expectError(try await client.get("/classes/Posts", query: ["where": .string(select)]), status: 403, code: 119)
            #expect(Support.ids(try await client.get("/classes/Posts", query: ["where": .string(inQuery)], master: true)) == [post])

            let requests: [ParseValue] = [
                ["method": "GET", "path": .string("/parse/classes/Secrets/\(secret)")], ["method": "POST", "path": "/parse/classes/Secrets", "body": ["title": "x"]],
                ["method": "GET", "path": .string("/parse/classes/Posts/\(post)")],
            ]
            let batch = try await client.post("/batch", ["requests": .array(requests)])
            #expect(batch.body.arrayValue?[0]["error"]?["code"] == 119 && batch.body.arrayValue?[2]["success"]?["objectId"] == .string(post), "\(batch.body)")
        }
    }

    @Test("addField: a client adds no field the CLPs keep it from adding; fields the class has stay writable", arguments: TestStore.allCases)
    func addField(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.lock(client, "Fixed", ["find": ["*": true], "get": ["*": true], "create": ["*": true], "update": ["*": true], "addField": [:]])
            let id = try await Support.create(client, "Fixed", ["title": "a"])
            Support.expectError(try await client.post("/classes/Fixed", ["title": "b", "extra": 1]), status: 403, code: 119)
            Support.expectError(try await client.put("/classes/Fixed/\(id)", ["extra": 1]), status: 403, code: 119)
            #expect(try await client.put("/classes/Fixed/\(id)", ["title": "c", "extra": ["__op": "Delete"]]).status == 200)
            #expect(try await client.post("/classes/Fixed", ["extra": 1], master: true).status == 201)
            #expect(try await client.put("/classes/Fixed/\(id)", ["extra": 2]).status == 200, "a field the master key added is the class's now")
        }
    }
}
