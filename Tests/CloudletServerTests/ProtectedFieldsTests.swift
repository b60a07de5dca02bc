import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Protected fields: other users' email is hidden on every read path and cannot be queried")
struct ProtectedFieldsTests {
    /// The victim (with an email) and the attacker, signed up; returns their ids and tokens.
    private static func victimAndAttacker(_ client: ParseTestClient) async throws -> (victim: (id: String, token: String), attacker: (id: String, token: String)) {
        let victim = try await UsersTests.signUp(client, "victim", email: "victim@example.com")
        let attacker = try await UsersTests.signUp(client, "attacker", email: "attacker@example.com")
        return (victim, attacker)
    }

    @Test("include, find, get, keys and batch GETs never show another user's email", arguments: TestStore.allCases)
    func emailHiddenOnEveryReadPath(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let (victim, attacker) = try await Self.victimAndAttacker(client)
            let victimPointer = ParseValue.pointer(className: "_User", objectId: victim.id)
            let note = try await Support.create(client, "Notes", ["u": victimPointer, "list": [victimPointer]])
            let session = UsersTests.session(attacker.token)

            let included = try await client.request(.get, "/classes/Notes/\(note)?include=u,list", headers: session)
            #expect(included.status == 200, "\(included.body)")
            #expect(included["u"]?["username"] == "victim")
            #expect(included["u"]?["email"] == nil, "include leaked \(included.body)")
            #expect(included["list"]?.arrayValue?.first?["email"] == nil, "include of an array leaked \(included.body)")

            let found = try await client.request(.get, "/classes/Notes?include=u", headers: session)
            #expect(found["results"]?.arrayValue?.first?["u"]?["email"] == nil, "find with include leaked \(found.body)")
            let users = try await client.request(.get, "/users?keys=email,username", headers: session)
            let victimEntry = users["results"]?.arrayValue?.first { $0["objectId"]?.stringValue == victim.id }
            #expect(victimEntry?["username"] == "victim")
            #expect(victimEntry?["email"] == nil, "keys=email leaked \(users.body)")
            let own = users["results"]?.arrayValue?.first { $0["objectId"]?.stringValue == attacker.id }
            #expect(own?["email"] == "attacker@example.com", "a user sees their own email")

            let batch = try await client.request(
                .post, "/batch",
                body: ["requests": [
                    ["method": "GET", "path": .string("/parse/classes/Notes/\(note)"), "body": ["include": "u"]],
                    ["method": "GET", "path": .string("/parse/users/\(victim.id)")],
                ]], headers: session)
            let entries = try #require(batch.body.arrayValue, "\(batch.body)")
            #expect(entries[0]["success"]?["u"]?["username"] == "victim", "\(batch.body)")
            #expect(entries[0]["success"]?["u"]?["email"] == nil, "batch include leaked \(batch.body)")
            #expect(entries[1]["success"]?["email"] == nil, "batch get leaked \(batch.body)")

            let master = try await client.get("/classes/Notes/\(note)", query: ["include": "u"], master: true)
            #expect(master["u"]?["email"] == "victim@example.com", "the master key sees every field")
        }
    }

    @Test("where and order on email answer 119 for clients, anywhere in the query; the master key may", arguments: TestStore.allCases)
    func emailCannotBeQueried(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let (_, attacker) = try await Self.victimAndAttacker(client)
            let session = UsersTests.session(attacker.token)
            let probes: [[String: ParseValue]] = [
                ["where": ["email": ["$regex": "^v"]], "count": 1],
                ["where": ["$or": [["username": "x"], ["email": "victim@example.com"]]]],
                ["where": ["email": ["$exists": true]]],
                ["order": "email"],
                ["order": "-email"],
            ]
            for probe in probes {
                let reply = try await client.request(.get, "/classes/_User" + Self.queryString(probe), headers: session)
                Support.expectError(reply, status: 403, code: 119)
            }
            let byMaster = try await client.get("/classes/_User", query: ["where": ["email": ["$regex": "^v"]]], master: true)
            #expect(Support.values(byMaster, "username") == ["victim"])
        }
    }

    @Test("a hook reading the store as its caller gets the caller's view, includes too", arguments: TestStore.allCases)
    func hooksSeeTheCallersView(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.function("emails") { request in
            let users = try await request.store.find(ParseQuery("_User", order: ["username"]))
            let notes = try await request.store.find(ParseQuery("Notes", include: ["u"]))
            return .array(users.map { $0["email"] ?? .null } + notes.map { $0["u"]?["email"] ?? .null })
        }
        try await UsersTests.withClient(store, hooks) { client in
            let (victim, attacker) = try await Self.victimAndAttacker(client)
            try await Support.create(client, "Notes", ["u": .pointer(className: "_User", objectId: victim.id)])
            let reply = try await client.request(.post, "/functions/emails", body: [:], headers: UsersTests.session(attacker.token))
            #expect(reply["result"] == ["attacker@example.com", .null, .null], "\(reply.body)")
        }
    }

    @Test("emailVerified and sessionToken are not client-writable: 119 and nothing written; authData only as linking checks it (252)", arguments: TestStore.allCases)
    func serverWrittenUserFields(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let signup = try await client.post("/users", ["username": "mia", "password": "pw", "emailVerified": true])
            Support.expectError(signup, status: 403, code: 119)
            let mia = try await UsersTests.signUp(client, "mia", email: "mia@example.com")
            let session = UsersTests.session(mia.token)
            let writes: [[String: ParseValue]] = [["emailVerified": true], ["sessionToken": "r:forged"]]
            for body in writes {
                let reply = try await client.request(.put, "/users/\(mia.id)", body: .object(body), headers: session)
                Support.expectError(reply, status: 403, code: 119)
            }
            let unchecked: ParseValue = ["authData": ["facebook": ["id": "x", "access_token": "forged"]]]
            Support.expectError(try await client.request(.put, "/users/\(mia.id)", body: unchecked, headers: session), status: 400, code: 252)
            let stored = try await client.get("/users/\(mia.id)", master: true)
            // A sign-up with an email starts unverified; the client's true was not written.
            #expect(stored["emailVerified"] == false && stored["authData"] == nil && stored["sessionToken"] == nil, "\(stored.body)")
            let byMaster = try await client.put("/users/\(mia.id)", ["emailVerified": true], master: true)
            #expect(byMaster.status == 200, "\(byMaster.body)")
        }
    }

    private static func queryString(_ query: [String: ParseValue]) -> String {
        "?" + query.keys.sorted().map { key in
            let text = query[key]!.stringValue ?? JSONWriter.string(query[key]!)
            return key + "=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text)
        }.joined(separator: "&")
    }
}
