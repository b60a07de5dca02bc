import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Synchronization
import Testing

/// Signup, login, sessions and per-user ACLs, over the real router.
@Suite("Users and sessions")
struct UsersTests {
    static let fast = ServerConfiguration(passwordHashCost: 4)

    /// Runs `body` with a client of a server of `registry`'s hooks, its data on `store`.
    static func withClient(
        _ store: TestStore, _ registry: HookRegistry = HookRegistry(), _ body: @Sendable (ParseTestClient) async throws -> Void
    ) async throws {
        try await store.withRouter(registry: registry, configuration: fast, body)
    }

    static func session(_ token: String) -> HTTPFields {
        [Support.sessionTokenHeader: token]
    }

    /// Signs up `username` and returns the user's id and session token.
    static func signUp(_ client: ParseTestClient, _ username: String, email: String? = nil) async throws -> (id: String, token: String) {
        var body: [String: ParseValue] = ["username": .string(username), "password": .string("pw-\(username)")]
        if let email { body["email"] = .string(email) }
        let reply = try await client.post("/users", body)
        #expect(reply.status == 201, "signup failed: \(reply.body)")
        let token = try #require(reply["sessionToken"]?.stringValue)
        #expect(token.hasPrefix("r:"))
        return (try #require(reply["objectId"]?.stringValue), token)
    }

    @Test(arguments: TestStore.allCases) func signupLoginMeAndLogout(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let ada = try await Self.signUp(client, "ada", email: "ada@example.com")
            let me = try await client.request(.get, "/users/me", headers: Self.session(ada.token))
            #expect(me.status == 200)
            #expect(me["username"] == "ada")
            #expect(me["password"] == nil)
            #expect(me["sessionToken"] == .string(ada.token))

            let login = try await client.get("/login", query: ["username": "ada", "password": "pw-ada"])
            #expect(login.status == 200)
            #expect(login["objectId"] == .string(ada.id))
            let second = try #require(login["sessionToken"]?.stringValue)
            #expect(second != ada.token)
            let postLogin = try await client.post("/login", ["username": "ada", "password": "pw-ada"])
            #expect(postLogin.status == 200)

            let logout = try await client.request(.post, "/logout", headers: Self.session(second))
            #expect(logout.status == 200)
            let revoked = try await client.request(.get, "/users/me", headers: Self.session(second))
            Support.expectError(revoked, status: 400, code: 209)
            let stillIn = try await client.request(.get, "/users/me", headers: Self.session(ada.token))
            #expect(stillIn.status == 200)
        }
    }

    @Test(arguments: TestStore.allCases) func usernamesAndEmailsAreUnique(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            _ = try await Self.signUp(client, "bo", email: "bo@example.com")
            let sameName = try await client.post("/users", ["username": "bo", "password": "x"])
            Support.expectError(sameName, status: 400, code: 202)
            let sameEmail = try await client.post("/users", ["username": "bo2", "password": "x", "email": "BO@example.com"])
            Support.expectError(sameEmail, status: 400, code: 203)
            let missingPassword = try await client.post("/users", ["username": "cy"])
            Support.expectError(missingPassword, status: 400, code: 201)
            let missingName = try await client.post("/users", ["password": "x"])
            Support.expectError(missingName, status: 400, code: 200)
            let badEmail = try await client.post("/users", ["username": "dee", "password": "x", "email": "nope"])
            Support.expectError(badEmail, status: 400, code: 125)
            #expect(try await Support.masterCount(client, "_User") == 1)
        }
    }

    @Test(arguments: TestStore.allCases) func wrongCredentialsGiveOneErrorAndAreThrottled(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            _ = try await Self.signUp(client, "eve")
            let wrongPassword = try await client.post("/login", ["username": "eve", "password": "guess"])
            Support.expectError(wrongPassword, status: 404, code: 101)
            let unknownUser = try await client.post("/login", ["username": "nobody", "password": "guess"])
            #expect(unknownUser.body == wrongPassword.body)
            for _ in 0..<4 { _ = try await client.post("/login", ["username": "eve", "password": "guess"]) }
            let blocked = try await client.post("/login", ["username": "eve", "password": "pw-eve"])
            Support.expectError(blocked, status: 429, code: 155)
        }
    }

    @Test(arguments: TestStore.allCases) func thePasswordNeverLeaves(store: TestStore) async throws {
        let seenByHook = MutexBox<[String]>([])
        var hooks = HookRegistry()
        hooks.beforeSave("_User") { request in seenByHook.append(contentsOf: Array(request.object.fields.keys)) }
        try await Self.withClient(store, hooks) { client in
            let fay = try await Self.signUp(client, "fay")
            let listed = try await client.get("/users", master: true)
            #expect(!JSONWriter.string(listed.body).contains("pw-fay"))
            #expect(!JSONWriter.string(listed.body).contains("password"))
            let byQuery = try await client.get("/classes/_User", query: ["where": ["password": "pw-fay"]], master: true)
            #expect(byQuery["results"]?.arrayValue?.isEmpty == true)
            let got = try await client.get("/users/\(fay.id)")
            #expect(got["password"] == nil)
        }
        #expect(!seenByHook.value.contains("password"))
        #expect(seenByHook.value.contains("username"))
    }

    @Test(arguments: TestStore.allCases) func onlyTheUserOrTheMasterKeyChangesAUser(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let gus = try await Self.signUp(client, "gus")
            let hal = try await Self.signUp(client, "hal")
            let byOther = try await client.request(.put, "/users/\(gus.id)", body: ["title": "boss"], headers: Self.session(hal.token))
            Support.expectError(byOther, status: 400, code: 206)
            let anonymous = try await client.put("/users/\(gus.id)", ["title": "boss"])
            Support.expectError(anonymous, status: 400, code: 206)
            let bySelf = try await client.request(.put, "/users/\(gus.id)", body: ["title": "engineer"], headers: Self.session(gus.token))
            #expect(bySelf.status == 200)
            let byMaster = try await client.put("/users/\(gus.id)", ["title": "lead"], master: true)
            #expect(byMaster.status == 200)
            #expect(try await client.get("/users/\(gus.id)")["title"] == "lead")

            let newPassword = try await client.request(.put, "/users/\(gus.id)", body: ["password": "new-pw"], headers: Self.session(gus.token))
            #expect(newPassword.status == 200)
            let oldLogin = try await client.post("/login", ["username": "gus", "password": "pw-gus"])
            Support.expectError(oldLogin, status: 404, code: 101)
            let newLogin = try await client.post("/login", ["username": "gus", "password": "new-pw"])
            #expect(newLogin.status == 200)
            let taken = try await client.request(.put, "/users/\(gus.id)", body: ["username": "hal"], headers: Self.session(gus.token))
            Support.expectError(taken, status: 400, code: 202)
        }
    }

    @Test(arguments: TestStore.allCases) func aclsAllowExactlyTheUsersAndRolesTheyName(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let ida = try await Self.signUp(client, "ida")
            let jo = try await Self.signUp(client, "jo")
            let kim = try await Self.signUp(client, "kim")
            let note = try await Support.create(
                client, "Notes", ["text": "private", "ACL": ParseACL.only(readers: [ida.id, jo.id], writers: [ida.id]).json], master: true)
            let staffOnly = try await Support.create(client, "Notes", ["text": "staff", "ACL": ["role:Staff": ["read": true]]], master: true)
            _ = try await Support.create(
                client, "_Role", ["name": "Staff", "users": .addRelation([.pointer(className: "_User", objectId: kim.id)]), "ACL": ["*": ["read": true]]],
                master: true)

            func visible(_ token: String?) async throws -> [String] {
                let reply = try await client.request(.get, "/classes/Notes", headers: token.map(Self.session) ?? [:])
                return Support.ids(reply).sorted()
            }
            #expect(try await visible(ida.token) == [note])
            #expect(try await visible(jo.token) == [note])
            #expect(try await visible(kim.token) == [staffOnly])
            #expect(try await visible(nil).isEmpty)

            let byReader = try await client.request(.put, "/classes/Notes/\(note)", body: ["text": "edited"], headers: Self.session(jo.token))
            Support.expectError(byReader, status: 404, code: 101)
            let byWriter = try await client.request(.put, "/classes/Notes/\(note)", body: ["text": "edited"], headers: Self.session(ida.token))
            #expect(byWriter.status == 200)
            let deleteByReader = try await client.request(.delete, "/classes/Notes/\(note)", headers: Self.session(jo.token))
            Support.expectError(deleteByReader, status: 404, code: 101)
        }
    }

    @Test(arguments: TestStore.allCases) func hooksActForTheSessionUser(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Messages") { request in
            guard let user = request.user else { throw HookError.unauthorized("log in to send messages") }
            request.object["sender"] = .string(user.id)
            request.object.acl = .only(readers: [user.id], writers: [user.id])
        }
        try await Self.withClient(store, hooks) { client in
            let anonymous = try await client.post("/classes/Messages", ["text": "hi"])
            Support.expectError(anonymous, status: 403, code: 119)
            let lee = try await Self.signUp(client, "lee")
            let sent = try await client.request(.post, "/classes/Messages", body: ["text": "hi"], headers: Self.session(lee.token))
            #expect(sent.status == 201)
            #expect(sent["sender"] == .string(lee.id))
            let id = try #require(sent["objectId"]?.stringValue)
            let own = try await client.request(.get, "/classes/Messages/\(id)", headers: Self.session(lee.token))
            #expect(own.status == 200)
            let other = try await client.get("/classes/Messages/\(id)")
            Support.expectError(other, status: 404, code: 101)
        }
    }

    @Test(arguments: TestStore.allCases) func deletingAUserEndsItsSessions(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let max = try await Self.signUp(client, "max")
            let deleted = try await client.request(.delete, "/users/\(max.id)", headers: Self.session(max.token))
            #expect(deleted.status == 200)
            let after = try await client.request(.get, "/users/me", headers: Self.session(max.token))
            Support.expectError(after, status: 400, code: 209)
            let login = try await client.post("/login", ["username": "max", "password": "pw-max"])
            Support.expectError(login, status: 404, code: 101)
        }
    }
}

/// A value shared with hook closures in a test.
final class MutexBox<Value: Sendable>: Sendable {
    private let storage: Synchronization.Mutex<Value>

    init(_ value: Value) { storage = Synchronization.Mutex(value) }

    var value: Value { storage.withLock { $0 } }

    func append<Element>(contentsOf elements: [Element]) where Value == [Element] {
        storage.withLock { $0.append(contentsOf: elements) }
    }
}
