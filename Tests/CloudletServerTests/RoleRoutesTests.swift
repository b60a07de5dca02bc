import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// `/roles` and `/classes/_Role` as Parse Server serves them: clients create roles and change them
/// as each role's ACL allows; a role needs a name (letters, digits, `_`, `-`, spaces; unique; never
/// changed) and an ACL; `users` and `roles` are relations.
@Suite("Roles: routes and rules")
struct RoleRoutesTests {
    static let publicRead: ParseValue = ["*": ["read": true]]

    static func pointer(_ className: String, _ id: String) -> ParseValue { .pointer(className: className, objectId: id) }

    /// `AddRelation` of the `_User`s `ids`.
    static func addUsers(_ ids: String...) -> ParseValue { .addRelation(ids.map { pointer("_User", $0) }) }

    /// `AddRelation` of the `_Role`s `ids`.
    static func addRoles(_ ids: String...) -> ParseValue { .addRelation(ids.map { pointer("_Role", $0) }) }

    /// Creates the role `name` as master with `fields`, publicly readable, and returns its id.
    @discardableResult
    static func createRole(
        _ client: ParseTestClient, _ name: String, _ fields: [String: ParseValue] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var body = fields
        body["name"] = .string(name)
        body["ACL"] = body["ACL"] ?? publicRead
        return try await Support.create(client, "_Role", body, master: true, sourceLocation: sourceLocation)
    }

    @Test("each /roles route does what /classes/_Role does, in a batch too", arguments: TestStore.allCases)
    func rolesRoutes(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let created = try await client.post("/roles", ["name": "Admins", "ACL": Self.publicRead], master: true)
            #expect(created.status == 201)
            #expect(created.headers[.location]?.hasPrefix("/parse/classes/_Role/") == true)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await client.get("/roles/\(id)")["name"] == "Admins")
            #expect(try await client.get("/classes/_Role/\(id)")["name"] == "Admins")
            #expect(Support.ids(try await client.get("/roles", query: ["where": ["name": "Admins"]])) == [id])
            let ann = try await UsersTests.signUp(client, "ann")
            #expect(try await client.put("/roles/\(id)", ["users": Self.addUsers(ann.id)], master: true).status == 200)
            let members = try await client.get("/users", query: ["where": ["$relatedTo": ["object": Self.pointer("_Role", id), "key": "users"]]])
            #expect(Support.ids(members) == [ann.id])
            let operation: ParseValue = ["method": "POST", "path": "/parse/roles", "body": ["name": "Editors", "ACL": Self.publicRead]]
            let batch = try await client.post("/batch", ["requests": [operation]], master: true)
            #expect(batch.body.arrayValue?.first?["success"]?["objectId"]?.stringValue != nil, "\(batch.body)")
            #expect(try await client.delete("/roles/\(id)", master: true).status == 200)
            #expect(try await Support.masterCount(client, "_Role") == 1)
        }
    }

    @Test("clients create roles, and change one only as its ACL allows (Parse Server's #3835)", arguments: TestStore.allCases)
    func clientsWriteAsTheACLAllows(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let ned = try await UsersTests.signUp(client, "ned")
            let created = try await client.post("/roles", ["name": "admin", "ACL": Self.publicRead], sessionToken: ned.token)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(created["objectId"]?.stringValue)
            // Public read, no writer: nobody but the master key adds members.
            Support.expectError(try await client.put("/roles/\(id)", ["users": Self.addUsers(ned.id)], sessionToken: ned.token), status: 404, code: 101)
            Support.expectError(try await client.delete("/roles/\(id)", sessionToken: ned.token), status: 404, code: 101)
            let members = try await client.get("/users", query: ["where": ["$relatedTo": ["object": Self.pointer("_Role", id), "key": "users"]]], master: true)
            #expect(Support.ids(members).isEmpty)
            // A role whose ACL lets its owner write.
            let owned = try await client.post(
                "/roles", ["name": "Owners", "ACL": [ned.id: ["read": true, "write": true]], "users": Self.addUsers(ned.id)], sessionToken: ned.token)
            let ownedId = try #require(owned["objectId"]?.stringValue)
            #expect(try await client.put("/roles/\(ownedId)", ["users": .removeRelation([Self.pointer("_User", ned.id)])], sessionToken: ned.token).status == 200)
            #expect(try await client.delete("/roles/\(ownedId)", sessionToken: ned.token).status == 200)
            // An existing role's name cannot be taken by a client's new role to join it.
            Support.expectError(
                try await client.post("/roles", ["name": "admin", "ACL": Self.publicRead, "users": Self.addUsers(ned.id)], sessionToken: ned.token),
                status: 400, code: 137)
        }
    }

    @Test("a role needs a name and an ACL (111); its name is unique (137) and never changes (-1)", arguments: TestStore.allCases)
    func nameAndACLRules(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            Support.expectError(try await client.post("/roles", ["ACL": Self.publicRead], master: true), status: 400, code: 111)
            Support.expectError(try await client.post("/roles", ["name": "NoACL"], master: true), status: 400, code: 111)
            Support.expectError(try await client.post("/roles", ["name": 7, "ACL": Self.publicRead], master: true), status: 400, code: 111)
            Support.expectError(try await client.post("/roles", ["name": "", "ACL": Self.publicRead], master: true), status: 400, code: -1)
            let id = try await Self.createRole(client, "Team Blue_2-a")
            Support.expectError(try await client.post("/roles", ["name": "Team Blue_2-a", "ACL": Self.publicRead], master: true), status: 400, code: 137)
            Support.expectError(try await client.put("/roles/\(id)", ["name": "Renamed"], master: true), status: 400, code: -1)
            Support.expectError(try await client.put("/roles/\(id)", ["name": ["__op": "Delete"]], master: true), status: 400, code: 111)
            #expect(try await client.put("/roles/\(id)", ["name": "Team Blue_2-a", "note": "same name"], master: true).status == 200)
            #expect(try await client.get("/roles/\(id)")["name"] == "Team Blue_2-a")
            // A deleted role's name is free again.
            #expect(try await client.delete("/roles/\(id)", master: true).status == 200)
            try await Self.createRole(client, "Team Blue_2-a")
        }
    }

    @Test("names with SQL, regex, ACL and Unicode characters, or past 256 bytes, are refused, and nothing is written", arguments: TestStore.allCases)
    func hostileNames(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let long = String(repeating: "a", count: 257)
            for name in ["a'; DROP TABLE objects; --", "Admins.*", "(a+)+$", "role:Admins", "*", "Ädmins", "a\u{0}b", "Admins\n", "%_%", long] {
                let reply = try await client.post("/roles", ["name": .string(name), "ACL": Self.publicRead], master: true)
                Support.expectError(reply, status: 400, code: -1)
            }
            #expect(try await Support.masterCount(client, "_Role") == 0)
            // A name of 256 bytes is allowed, and a pattern that backtracks exponentially elsewhere finds it.
            let longest = try await Self.createRole(client, String(long.dropFirst()))
            let found = try await client.get("/roles", query: ["where": ["name": ["$regex": "^(a+)+$"]]])
            #expect(found.status == 200 && Support.ids(found) == [longest])
        }
    }

    @Test("users and roles are relations of _User and _Role: arrays, other classes and other operations are refused (111)", arguments: TestStore.allCases)
    func relationFields(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let amy = try await UsersTests.signUp(client, "amy")
            let id = try await Self.createRole(client, "Readers")
            for body: [String: ParseValue] in [
                ["users": [Self.pointer("_User", amy.id)]],
                ["users": .addRelation([Self.pointer("Posts", "x1")])],
                ["roles": Self.addUsers(amy.id)],
                ["users": ["__op": "Delete"]],
                ["roles": "Writers"],
            ] {
                Support.expectError(try await client.put("/roles/\(id)", body, master: true), status: 400, code: 111)
            }
            var creating = ["name": ParseValue.string("Others"), "ACL": Self.publicRead]
            creating["users"] = [Self.pointer("_User", amy.id)]
            Support.expectError(try await client.post("/roles", creating, master: true), status: 400, code: 111)
            #expect(try await client.get("/roles/\(id)")["users"] == nil)
        }
    }
}
