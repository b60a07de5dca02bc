import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// `_Session` objects as Parse Server serves them: each user reaches only their own sessions (the
/// master key all), deleting one logs it out, and sessions expire after the app's session length.
@Suite("Sessions")
struct SessionsTests {
    static let installationHeader = HTTPField.Name("X-Parse-Installation-Id")!

    /// Logs `username` in (signing up first when `signUp`) from `installation`; answers the token.
    static func logIn(_ client: ParseTestClient, _ username: String, from installation: String, signUp: Bool = false) async throws -> String {
        let body: ParseValue = ["username": .string(username), "password": "pw"]
        let reply = try await client.request(.post, signUp ? "/users" : "/login", body: body, headers: [installationHeader: installation])
        #expect(reply.status == (signUp ? 201 : 200), "\(reply.body)")
        return try #require(reply["sessionToken"]?.stringValue)
    }

    /// The results of `GET path` as the caller `token` (or the master key).
    static func results(_ client: ParseTestClient, _ path: String, query: [String: ParseValue] = [:], token: String? = nil) async throws -> [ParseValue] {
        let reply = try await client.get(path, query: query, master: token == nil, sessionToken: token)
        #expect(reply.status == 200, "\(reply.body)")
        return reply["results"]?.arrayValue ?? []
    }

    @Test("list, me and get show the caller's sessions in Parse's shape, the token only on the one presented", arguments: TestStore.allCases)
    func listMeAndGet(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let phone = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let tablet = try await Self.logIn(client, "ada", from: "tablet-1")
            let me = try await client.get("/sessions/me", sessionToken: phone)
            #expect(me.status == 200, "\(me.body)")
            #expect(me["sessionToken"] == .string(phone))
            #expect(me["createdWith"] == ["action": "signup", "authProvider": "password"])
            #expect(me["installationId"] == "phone-1")
            #expect(me["restricted"] == false)
            #expect(me["user"]?.pointerValue?.className == "_User")
            let createdAt = try #require(me["createdAt"]?.stringValue.flatMap(ParseDate.date(from:)))
            let expiresAt = try #require(me["expiresAt"]?["iso"]?.stringValue.flatMap(ParseDate.date(from:)))
            #expect(me["expiresAt"]?["__type"] == "Date")
            #expect(abs(expiresAt.timeIntervalSince(createdAt) - 365 * 86_400) < 1)

            for path in ["/sessions", "/classes/_Session"] {
                let listed = try await Self.results(client, path, token: tablet)
                #expect(listed.count == 2)
                #expect(listed.compactMap { $0["sessionToken"]?.stringValue } == [tablet], "only the presented session shows its token")
                #expect(Set(listed.compactMap { $0["installationId"]?.stringValue }) == ["phone-1", "tablet-1"])
                #expect(listed.last?["createdWith"] == ["action": "login", "authProvider": "password"])
            }
            let phoneId = try #require(me["objectId"]?.stringValue)
            let got = try await client.get("/sessions/\(phoneId)", sessionToken: tablet)
            #expect(got["objectId"] == .string(phoneId))
            #expect(got["sessionToken"] == nil)
            #expect(try await client.get("/classes/_Session/\(phoneId)", sessionToken: phone)["sessionToken"] == .string(phone))
            let counted = try await client.get("/sessions", query: ["count": 1, "limit": 0], sessionToken: phone)
            #expect(counted["count"] == 2)
            #expect(counted["results"]?.arrayValue?.isEmpty == true)
            let byInstallation = try await Self.results(client, "/sessions", query: ["where": ["installationId": "tablet-1"]], token: phone)
            #expect(byInstallation.map { $0["installationId"] } == ["tablet-1"])
        }
    }

    @Test("a user never reads, changes or deletes another user's session: 101, as for one that does not exist", arguments: TestStore.allCases)
    func usersReachOnlyTheirOwn(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let ada = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let bob = try await Self.logIn(client, "bob", from: "phone-2", signUp: true)
            let adaSession = try #require(try await client.get("/sessions/me", sessionToken: ada)["objectId"]?.stringValue)
            let adaUser = try #require(try await client.get("/users/me", sessionToken: ada)["objectId"]?.stringValue)
            Support.expectError(try await client.get("/sessions/\(adaSession)", sessionToken: bob), status: 404, code: 101)
            Support.expectError(try await client.get("/classes/_Session/\(adaSession)", sessionToken: bob), status: 404, code: 101)
            Support.expectError(try await client.put("/sessions/\(adaSession)", ["note": "x"], sessionToken: bob), status: 404, code: 101)
            Support.expectError(try await client.delete("/sessions/\(adaSession)", sessionToken: bob), status: 404, code: 101)
            Support.expectError(try await client.delete("/classes/_Session/\(adaSession)", sessionToken: bob), status: 404, code: 101)
            let bobs = try await Self.results(client, "/sessions", token: bob)
            #expect(bobs.map { $0["installationId"] } == ["phone-2"])
            let asking = ["where": ParseValue.object(["user": .pointer(className: "_User", objectId: adaUser)])]
            #expect(try await Self.results(client, "/sessions", query: asking, token: bob).isEmpty)
            #expect(try await Self.results(client, "/sessions", query: asking).count == 1, "the master key reaches every session")
            #expect(try await Self.results(client, "/sessions").count == 2)
            // No session at all: Parse's 209, for lists and for /me.
            Support.expectError(try await client.get("/sessions"), status: 400, code: 209)
            Support.expectError(try await client.get("/sessions/me"), status: 400, code: 209)
            Support.expectError(try await client.post("/sessions", [:]), status: 400, code: 209)
            // Ada's session, untouched, still works.
            #expect(try await client.get("/users/me", sessionToken: ada).status == 200)
            #expect(try await client.get("/sessions/me", sessionToken: ada)["note"] == nil)
        }
    }

    @Test("deleting a session logs it out at once; a new login from the same installation replaces its session", arguments: TestStore.allCases)
    func deletingLogsOut(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let phone = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let tablet = try await Self.logIn(client, "ada", from: "tablet-1")
            let tabletId = try #require(try await client.get("/sessions/me", sessionToken: tablet)["objectId"]?.stringValue)
            #expect(try await client.delete("/sessions/\(tabletId)", sessionToken: phone).status == 200)
            Support.expectError(try await client.get("/users/me", sessionToken: tablet), status: 400, code: 209)
            Support.expectError(try await client.delete("/sessions/\(tabletId)", sessionToken: phone), status: 404, code: 101)
            #expect(try await client.get("/users/me", sessionToken: phone).status == 200)

            let phoneAgain = try await Self.logIn(client, "ada", from: "phone-1")
            Support.expectError(try await client.get("/users/me", sessionToken: phone), status: 400, code: 209)
            let phoneId = try #require(try await client.get("/sessions/me", sessionToken: phoneAgain)["objectId"]?.stringValue)
            #expect(try await client.delete("/classes/_Session/\(phoneId)", sessionToken: phoneAgain).status == 200)
            Support.expectError(try await client.get("/users/me", sessionToken: phoneAgain), status: 400, code: 209)
            #expect(try await Self.results(client, "/sessions").isEmpty)
        }
    }

    @Test("a user sets its own fields on its sessions, never Parse's; creates and upgrades make sessions of their own", arguments: TestStore.allCases)
    func updateCreateAndUpgrade(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let token = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let id = try #require(try await client.get("/sessions/me", sessionToken: token)["objectId"]?.stringValue)
            let updated = try await client.put("/sessions/\(id)", ["deviceName": "Ada's phone"], sessionToken: token)
            #expect(updated.status == 200, "\(updated.body)")
            #expect(updated["updatedAt"]?.stringValue != nil)
            #expect(try await client.get("/sessions/me", sessionToken: token)["deviceName"] == "Ada's phone")
            for (field, value) in [("user", ParseValue.pointer(className: "_User", objectId: "x")), ("expiresAt", .date(Date())),
                ("installationId", "other"), ("sessionToken", "r:0"), ("ACL", [:]), ("createdWith", ["action": "login"]), ("restricted", true)] {
                Support.expectError(try await client.put("/sessions/\(id)", [field: value], sessionToken: token), status: 400, code: 105)
            }
            let tooLarge = String(repeating: "x", count: 5_000)
            Support.expectError(try await client.put("/sessions/\(id)", ["note": .string(tooLarge)], sessionToken: token), status: 413, code: 116)
            #expect(try await client.put("/sessions/\(id)", ["deviceName": ["__op": "Delete"]], sessionToken: token).status == 200)
            let me = try await client.get("/sessions/me", sessionToken: token)
            #expect(me["deviceName"] == nil && me["note"] == nil)
            #expect(me["expiresAt"]?["__type"] == "Date")

            let created = try await client.post("/sessions", ["deviceName": "watch"], sessionToken: token)
            #expect(created.status == 201, "\(created.body)")
            #expect(created["createdWith"] == ["action": "create"])
            let createdToken = try #require(created["sessionToken"]?.stringValue)
            #expect(try await client.get("/sessions/me", sessionToken: createdToken)["deviceName"] == "watch")
            Support.expectError(try await client.post("/sessions", ["user": "x"], sessionToken: token), status: 400, code: 105)

            let upgraded = try await client.post("/upgradeToRevocableSession", [:], sessionToken: createdToken)
            #expect(upgraded["createdWith"] == ["action": "upgrade"])
            let upgradedToken = try #require(upgraded["sessionToken"]?.stringValue)
            #expect(try await client.get("/users/me", sessionToken: upgradedToken).status == 200)
            Support.expectError(try await client.post("/upgradeToRevocableSession", [:]), status: 404, code: 101)
            #expect(try await Self.results(client, "/sessions", token: token).count == 3)
        }
    }

    @Test("hostile ids and queries: not found or a query error, never another session, never a probe by token", arguments: TestStore.allCases)
    func hostileIdsAndQueries(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let ada = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let bob = try await Self.logIn(client, "bob", from: "phone-2", signUp: true)
            for id in ["x'%20OR%20'1'%3D'1", "%25", String(repeating: "a", count: 4_000), "..%2F..%2Fusers"] {
                Support.expectError(try await client.get("/sessions/\(id)", sessionToken: bob), status: 404, code: 101)
                Support.expectError(try await client.put("/sessions/\(id)", ["note": "x"], sessionToken: bob), status: 404, code: 101)
                Support.expectError(try await client.delete("/sessions/\(id)", sessionToken: bob), status: 404, code: 101)
            }
            // `me` names the caller's own session for a read only.
            Support.expectError(try await client.put("/sessions/me", ["note": "x"], sessionToken: bob), status: 405, code: 119)
            Support.expectError(try await client.delete("/sessions/me", sessionToken: bob), status: 405, code: 119)
            let probes: [ParseValue] = [
                ["sessionToken": .string(ada)], ["objectId": ["$ne": "x"]], ["$or": [["installationId": "phone-1"]]],
                ["installationId": ["$regex": "."]], ["expiresAt": ["$gt": .date(Date())]],
            ]
            for probe in probes {
                Support.expectError(try await client.get("/sessions", query: ["where": probe], sessionToken: bob), status: 400, code: 102)
            }
            Support.expectError(try await client.get("/sessions", query: ["order": "-expiresAt"], sessionToken: bob), status: 400, code: 102)
            #expect(try await client.get("/users/me", sessionToken: ada).status == 200)
            #expect(try await Self.results(client, "/sessions").count == 2)
        }
    }

    @Test("a list of sessions is charged to the request's read budget: 154 past it, whatever the sessions' fields", arguments: TestStore.allCases)
    func listsAreBounded(store: TestStore) async throws {
        let configuration = ServerConfiguration(passwordHashCost: 4, maximumResponseBytes: 32 << 10)
        try await store.withRouter(registry: HookRegistry(), configuration: configuration) { client in
            let token = try await Self.logIn(client, "ada", from: "phone-1", signUp: true)
            let note = ParseValue.string(String(repeating: "n", count: 4_000))
            for _ in 0..<10 {
                #expect(try await client.post("/sessions", ["note": note], sessionToken: token).status == 201)
            }
            Support.expectError(try await client.get("/sessions", sessionToken: token), status: 400, code: 154)
            #expect(try await Self.results(client, "/sessions", query: ["limit": 5], token: token).count == 5)
        }
    }

    @Test("the session length setting sets expiresAt; an expired token gets 209; each app has its own length and sessions", arguments: TestStore.allCases)
    func sessionLengthAndApps(store: TestStore) async throws {
        let clock = ManualClock()
        try await AdminAPITests.withServer(clock: clock, store: store) { admin, parse in
            let a = parse("a", "a-client", "a-master"), b = parse("b", "b-client", "b-master")
            let changed = try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", ["sessionLength": 60])
            #expect(changed.status == 200, "\(changed.body)")
            #expect(try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", ["sessionLength": 0]).status == 400)
            let aToken = try await Self.logIn(a, "ada", from: "phone-1", signUp: true)
            let bToken = try await Self.logIn(b, "ada", from: "phone-1", signUp: true)
            let aSession = try await a.get("/sessions/me", sessionToken: aToken)
            let expiresAt = aSession["expiresAt"]?["iso"]?.stringValue.flatMap(ParseDate.date(from:))
            #expect(expiresAt == clock.now.addingTimeInterval(60))
            let aId = try #require(aSession["objectId"]?.stringValue)

            // One app's sessions are nothing to the other: its token, its ids, its master key.
            Support.expectError(try await b.get("/users/me", sessionToken: aToken), status: 400, code: 209)
            Support.expectError(try await b.get("/sessions/\(aId)", master: true), status: 404, code: 101)
            Support.expectError(try await b.delete("/sessions/\(aId)", master: true), status: 404, code: 101)
            #expect(try await Self.results(b, "/sessions").count == 1)

            clock.advance(by: .seconds(59))
            #expect(try await a.get("/users/me", sessionToken: aToken).status == 200)
            clock.advance(by: .seconds(2))
            let expired = try await a.get("/users/me", sessionToken: aToken)
            Support.expectError(expired, status: 400, code: 209)
            #expect(expired["error"] == "Session token is expired.")
            #expect(try await b.get("/users/me", sessionToken: bToken).status == 200, "app b keeps Parse's one year")
            _ = try await Self.logIn(a, "ada", from: "phone-2")
        }
    }
}
