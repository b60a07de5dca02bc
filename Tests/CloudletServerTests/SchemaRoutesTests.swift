import Cloudlet
import CloudletRuntime
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

/// `/schemas` and `/purge` through the router, on real SQLite: Parse Server's schema API.
@Suite("Schema routes")
struct SchemaRoutesTests {
    @Test("only the master key reaches /schemas and /purge", arguments: TestStore.allCases)
    func masterKeyOnly(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let token = try #require(try await client.post("/users", ["username": "ada", "password": "pw"])["sessionToken"]?.stringValue)
            for session in [nil, token] {
                Support.expectError(try await client.get("/schemas", sessionToken: session), status: 403, code: 119)
                Support.expectError(try await client.get("/schemas/_User", sessionToken: session), status: 403, code: 119)
                Support.expectError(try await client.post("/schemas/Posts", [:], sessionToken: session), status: 403, code: 119)
                Support.expectError(try await client.put("/schemas/_User", [:], sessionToken: session), status: 403, code: 119)
                Support.expectError(try await client.delete("/schemas/Posts", sessionToken: session), status: 403, code: 119)
                Support.expectError(try await client.delete("/purge/_User", sessionToken: session), status: 403, code: 119)
            }
            #expect(try await Support.masterCount(client, "_User") == 1, "a refused purge removes nothing")
        }
    }

    @Test("a class made by its first save is listed with its field types in Parse's shape, and the default fields", arguments: TestStore.allCases)
    func listAndGet(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let author = try await Support.create(client, "_User", ["username": "ada", "password": "pw"])
            try await Support.create(
                client, "Posts",
                ["title": "hi", "likes": 3, "draft": true, "tags": ["a"], "meta": ["k": 1], "at": .date(Date(timeIntervalSince1970: 0)),
                 "author": .pointer(className: "_User", objectId: author), "where": .geoPoint(latitude: 1, longitude: 2)])
            let list = try await client.get("/schemas", master: true)
            let names = list["results"]?.arrayValue?.compactMap { $0["className"]?.stringValue } ?? []
            #expect(names == ["Posts", "_Installation", "_Role", "_Session", "_User"], "\(list.body)")

            let posts = try await client.get("/schemas/Posts", master: true)
            #expect(posts["className"] == "Posts")
            let fields = try #require(posts["fields"]?.objectValue)
            #expect(fields["objectId"] == ["type": "String"] && fields["createdAt"] == ["type": "Date"] && fields["ACL"] == ["type": "ACL"])
            #expect(fields["title"] == ["type": "String"] && fields["likes"] == ["type": "Number"] && fields["draft"] == ["type": "Boolean"])
            #expect(fields["tags"] == ["type": "Array"] && fields["meta"] == ["type": "Object"] && fields["at"] == ["type": "Date"])
            #expect(fields["author"] == ["type": "Pointer", "targetClass": "_User"] && fields["where"] == ["type": "GeoPoint"])
            #expect(posts["classLevelPermissions"]?["find"] == ["*": true] && posts["classLevelPermissions"]?["protectedFields"] == ["*": []])
            #expect(posts["indexes"] == ["_id_": ["_id": 1]])

            let users = try #require(try await client.get("/schemas/_User", master: true)["fields"]?.objectValue)
            #expect(users["username"] == ["type": "String"] && users["emailVerified"] == ["type": "Boolean"] && users["authData"] == ["type": "Object"])
            let userCLPs = try await client.get("/schemas/_User", master: true)["classLevelPermissions"]
            #expect(userCLPs?["protectedFields"] == ["*": ["authData", "email"]], "the app's own protected fields show among the CLPs'")
            Support.expectError(try await client.get("/schemas/Nothing", master: true), status: 400, code: 103)
        }
    }

    @Test("create with fields, CLPs and indexes; name mismatch, existing class, bad types and names refused", arguments: TestStore.allCases)
    func create(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let body: [String: ParseValue] = [
                "className": "Games",
                "fields": ["score": ["type": "Number"], "owner": ["type": "Pointer", "targetClass": "_User"],
                           "players": ["type": "Relation", "targetClass": "_User"], "area": ["type": "Polygon"], "blob": ["type": "Bytes"], "cover": ["type": "File"]],
                "classLevelPermissions": ["find": ["requiresAuthentication": true], "get": ["*": true], "create": ["role:Admins": true],
                                          "update": ["pointerFields": ["owner"]], "protectedFields": ["*": ["score"]]],
                "indexes": ["by_score": ["score": -1]],
            ]
            let created = try await client.post("/schemas", body, master: true)
            #expect(created.status == 200, "\(created.body)")
            #expect(created["fields"]?["players"] == ["type": "Relation", "targetClass": "_User"] && created["fields"]?["area"] == ["type": "Polygon"])
            #expect(created["classLevelPermissions"]?["find"] == ["requiresAuthentication": true])
            #expect(created["classLevelPermissions"]?["delete"] == [:], "an operation the CLPs leave out is the master key's only")
            #expect(created["classLevelPermissions"]?["update"] == ["pointerFields": ["owner"]])
            #expect(created["indexes"]?["by_score"] == ["score": -1])
            #expect(try await client.get("/schemas/Games", master: true).body == created.body)
            Support.expectError(try await client.post("/classes/Games", ["score": "high"], master: true), status: 400, code: 111)
            #expect(try await client.post("/classes/Games", ["score": 7], master: true).status == 201, "a declared type is the field's type")

            Support.expectError(try await client.post("/schemas/Games", [:], master: true), status: 400, code: 103)
            Support.expectError(try await client.post("/schemas/Other", ["className": "Games"], master: true), status: 400, code: 103)
            Support.expectError(try await client.post("/schemas", [:], master: true), status: 400, code: 135)
            Support.expectError(try await client.post("/schemas/A", ["fields": ["x": ["type": "Money"]]], master: true), status: 400, code: 111)
            Support.expectError(try await client.post("/schemas/A", ["fields": ["x": ["type": "Pointer"]]], master: true), status: 400, code: 135)
            Support.expectError(try await client.post("/schemas/A", ["fields": ["bad-name": ["type": "String"]]], master: true), status: 400, code: 105)
            Support.expectError(try await client.post("/schemas/A", ["fields": ["objectId": ["type": "String"]]], master: true), status: 400, code: 136)
            Support.expectError(try await client.post("/schemas/_Bad", [:], master: true), status: 400, code: 103)
            Support.expectError(try await client.post("/schemas/A", ["indexes": ["i": ["missing": 1]]], master: true), status: 400, code: 255)
            Support.expectError(try await client.get("/schemas/A", master: true), status: 400, code: 103)
        }
    }

    @Test("update adds and deletes fields (the values and join rows go), replaces CLPs, adds and deletes indexes", arguments: TestStore.allCases)
    func update(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let user = try await Support.create(client, "_User", ["username": "ada", "password": "pw"])
            let id = try await Support.create(client, "Teams", ["name": "red", "secret": "s"])
            let related = try await client.put(
                "/classes/Teams/\(id)", ["members": ["__op": "AddRelation", "objects": [.pointer(className: "_User", objectId: user)]]], master: true)
            #expect(related.status == 200, "\(related.body)")

            let changed = try await client.put(
                "/schemas/Teams",
                ["fields": ["secret": ["__op": "Delete"], "members": ["__op": "Delete"], "rank": ["type": "Number"]],
                 "classLevelPermissions": ["find": ["*": true], "get": ["*": true]], "indexes": ["by_rank": ["rank": 1]]],
                master: true)
            #expect(changed.status == 200, "\(changed.body)")
            #expect(changed["fields"]?["secret"] == nil && changed["fields"]?["members"] == nil && changed["fields"]?["rank"] == ["type": "Number"])
            #expect(changed["classLevelPermissions"]?["create"] == [:])
            let stored = try await client.get("/classes/Teams/\(id)", master: true)
            #expect(stored["secret"] == nil && stored["name"] == "red", "a deleted field leaves every object")
            let members = try await client.get(
                "/classes/_User", query: ["where": .string(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"Teams","objectId":"\#(id)"},"key":"members"}}"#)],
                master: true)
            #expect(Support.ids(members).isEmpty, "a deleted relation field leaves no join rows: \(members.body)")

            let dropped = try await client.put("/schemas/Teams", ["indexes": ["by_rank": ["__op": "Delete"]]], master: true)
            #expect(dropped["indexes"] == ["_id_": ["_id": 1]], "\(dropped.body)")
            #expect(try await client.post("/classes/Teams", ["secret": 5], master: true).status == 201, "a deleted field may come back with another type")

            Support.expectError(try await client.put("/schemas/Teams", ["fields": ["name": ["type": "String"]]], master: true), status: 400, code: 255)
            Support.expectError(try await client.put("/schemas/Teams", ["fields": ["nope": ["__op": "Delete"]]], master: true), status: 400, code: 255)
            Support.expectError(try await client.put("/schemas/Teams", ["indexes": ["nope": ["__op": "Delete"]]], master: true), status: 400, code: 255)
            Support.expectError(try await client.put("/schemas/Nothing", [:], master: true), status: 400, code: 103)
            Support.expectError(try await client.put("/schemas/_Session", ["classLevelPermissions": ["find": [:]]], master: true), status: 400, code: 255)
            Support.expectError(try await client.put("/schemas/Teams", ["className": "Other"], master: true), status: 400, code: 103)
        }
    }

    @Test("delete drops an empty class only; purge empties a class and keeps its schema", arguments: TestStore.allCases)
    func deleteAndPurge(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let user = try await Support.create(client, "_User", ["username": "ada", "password": "pw"])
            for index in 0..<3 {
                let id = try await Support.create(client, "Notes", ["n": .number(Double(index))])
                _ = try await client.put(
                    "/classes/Notes/\(id)", ["readers": ["__op": "AddRelation", "objects": [.pointer(className: "_User", objectId: user)]]], master: true)
            }
            let refused = try await client.delete("/schemas/Notes", master: true)
            Support.expectError(refused, status: 400, code: 255)
            #expect(refused["error"] == "Class Notes is not empty, contains 3 objects, cannot drop schema.")

            let purged = try await client.delete("/purge/Notes", master: true)
            #expect(purged.status == 200 && purged.body == [:], "\(purged.body)")
            #expect(try await Support.masterCount(client, "Notes") == 0)
            #expect(try await client.get("/schemas/Notes", master: true)["fields"]?["readers"] == ["type": "Relation", "targetClass": "_User"])
            #expect(try await Support.masterCount(client, "_User") == 1, "a purge touches its class only")

            #expect(try await client.delete("/schemas/Notes", master: true).body == [:])
            Support.expectError(try await client.get("/schemas/Notes", master: true), status: 400, code: 103)
            #expect(try await client.delete("/schemas/Notes", master: true).status == 200, "a class that does not exist is dropped already")
            Support.expectError(try await client.delete("/purge/_Session", master: true), status: 400, code: 103)
        }
    }

    @Test("hostile documents: huge CLPs, 10k fields, bad entries, hostile names — each a clear error, nothing stored", arguments: TestStore.allCases)
    func hostileDocuments(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let users = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("user\($0)", ParseValue.bool(true)) })
            Support.expectError(try await client.post("/schemas/Big", ["classLevelPermissions": ["find": .object(users)]], master: true), status: 400, code: 107)
            let fields = Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("f\($0)", ParseValue.object(["type": "String"])) })
            Support.expectError(try await client.post("/schemas/Big", ["fields": .object(fields)], master: true), status: 400, code: 255)
            for clp: ParseValue in [
                ["find": ["*": false]], ["find": ["user-1": true]], ["fly": ["*": true]], ["find": "everyone"],
                ["readUserFields": ["nope"]], ["update": ["pointerFields": ["title"]]], ["protectedFields": ["*": ["objectId"]]],
                ["protectedFields": ["*": ["missing"]]], ["protectedFields": ["role:X": "title"]],
            ] {
                Support.expectError(
                    try await client.post("/schemas/Big", ["fields": ["title": ["type": "String"]], "classLevelPermissions": clp], master: true),
                    status: 400, code: 107)
            }
            for name in ["'; DROP TABLE objects; --", "a\"b", "_Sneaky", String(repeating: "x", count: 200), "Ünïcode"] {
                Support.expectClientError(try await client.post("/schemas/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", [:], master: true))
                Support.expectClientError(try await client.post("/schemas/Ok", ["fields": [name: ["type": "String"]]], master: true))
                Support.expectClientError(try await client.post("/schemas/Ok", ["indexes": [name: ["a": 1]]], master: true))
            }
            Support.expectError(try await client.get("/schemas/Big", master: true), status: 400, code: 103)
            Support.expectError(try await client.get("/schemas/Ok", master: true), status: 400, code: 103)
            let names = try await client.get("/schemas", master: true)["results"]?.arrayValue?.compactMap { $0["className"]?.stringValue }
            #expect(names == ["_Installation", "_Role", "_Session", "_User"])
        }
    }
}
