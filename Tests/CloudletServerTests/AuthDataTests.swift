import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

@Suite("authData: anonymous users sign up and log in, link and unlink, run the login hooks, and stay hidden from others")
struct AuthDataTests {
    static let configuration = ServerConfiguration(passwordHashCost: 4)

    static func anonymous(_ id: String) -> ParseValue {
        ["anonymous": ["id": .string(id)]]
    }

    @Test("an anonymous id signs up (201, a random username) and then logs in (200, the same user, a new session); others never see authData", arguments: TestStore.allCases)
    func anonymousSignUpAndLogIn(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: Self.configuration) { client in
            let authData = Self.anonymous("6a1c1c9e-0a5c-4f7a-9a51-0e3d9d0e2f11")
            let first = try await client.post("/users", ["authData": authData])
            #expect(first.status == 201, "\(first.body)")
            let id = try #require(first["objectId"]?.stringValue)
            let firstToken = try #require(first["sessionToken"]?.stringValue)
            #expect(first["username"]?.stringValue?.count == 25)
            #expect(first.headers[.location]?.hasSuffix("/users/\(id)") == true)

            let again = try await client.post("/users", ["authData": authData])
            #expect(again.status == 200, "\(again.body)")
            #expect(again["objectId"]?.stringValue == id && again["authData"] == authData)
            let token = try #require(again["sessionToken"]?.stringValue)
            // Both sessions say how they were made, as Parse Server says it of an authData sign-in.
            for sessionToken in [firstToken, token] {
                let session = try await client.get("/sessions/me", sessionToken: sessionToken)
                #expect(session["createdWith"] == ["action": "login", "authProvider": "anonymous"], "\(session.body)")
            }
            let password = try await client.post("/users", ["username": "pat", "password": "pw"])
            let patSession = try await client.get("/sessions/me", sessionToken: try #require(password["sessionToken"]?.stringValue))
            #expect(patSession["createdWith"] == ["action": "signup", "authProvider": "password"])
            #expect(token != firstToken)
            let me = try await client.get("/users/me", sessionToken: token)
            #expect(me["objectId"]?.stringValue == id && me["authData"] == authData && me["sessionToken"]?.stringValue == token)

            // Another user sees the user but not its authData, and may not look users up by it.
            let eve = try #require(try await client.post("/users", ["username": "eve", "password": "pw"])["sessionToken"]?.stringValue)
            let seen = try await client.get("/users/\(id)", sessionToken: eve)
            #expect(seen.status == 200 && seen["authData"] == nil, "\(seen.body)")
            let listed = try await client.get("/users", sessionToken: eve)
            #expect(listed["results"]?.arrayValue?.allSatisfy { $0["authData"] == nil } == true)
            let byId = ["authData.anonymous.id": ParseValue.string("6a1c1c9e-0a5c-4f7a-9a51-0e3d9d0e2f11")]
            Support.expectError(try await client.get("/users", query: ["where": .object(byId)], sessionToken: eve), status: 403, code: 119)
            // …nor set it as a plain field.
            Support.expectError(try await client.put("/users/\(id)", ["username": "x"], sessionToken: eve), status: 400, code: 206)
            #expect(try await client.get("/users/\(id)", master: true)["authData"] == authData)
        }
    }

    @Test("PUT /users/:id links and unlinks providers; an id linked to another user answers 208 and changes nothing", arguments: TestStore.allCases)
    func linkAndUnlink(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: Self.configuration) { client in
            let ada = try await client.post("/users", ["username": "ada", "password": "pw"])
            let adaId = try #require(ada["objectId"]?.stringValue), adaToken = try #require(ada["sessionToken"]?.stringValue)
            let bob = try await client.post("/users", ["authData": Self.anonymous("bob-device")])
            let bobId = try #require(bob["objectId"]?.stringValue)

            Support.expectError(
                try await client.put("/users/\(adaId)", ["authData": Self.anonymous("bob-device")], sessionToken: adaToken), status: 400,
                code: 208)
            let unchanged = try await client.get("/users/me", sessionToken: adaToken)
            #expect(unchanged["authData"] == nil, "\(unchanged.body)")

            let linked = try await client.put("/users/\(adaId)", ["authData": Self.anonymous("ada-device")], sessionToken: adaToken)
            #expect(linked.status == 200, "\(linked.body)")
            #expect(try await client.get("/users/me", sessionToken: adaToken)["authData"] == Self.anonymous("ada-device"))
            let loggedIn = try await client.post("/users", ["authData": Self.anonymous("ada-device")])
            #expect(loggedIn.status == 200 && loggedIn["objectId"]?.stringValue == adaId && loggedIn["username"] == "ada")
            // A password login still works beside it.
            #expect(try await client.post("/login", ["username": "ada", "password": "pw"]).status == 200)

            // Unlinking removes the provider: the same id then signs a new user up.
            let unlinked = try await client.put("/users/\(adaId)", ["authData": ["anonymous": .null]], sessionToken: adaToken)
            #expect(unlinked.status == 200, "\(unlinked.body)")
            let afterUnlink = try await client.get("/users/me", sessionToken: adaToken)
            #expect(afterUnlink["authData"] == nil, "\(afterUnlink.body)")
            let fresh = try await client.post("/users", ["authData": Self.anonymous("ada-device")])
            #expect(fresh.status == 201 && fresh["objectId"]?.stringValue != adaId)

            // Only the user (or the master key) links; the master key's links are checked alike.
            Support.expectError(
                try await client.put("/users/\(bobId)", ["authData": Self.anonymous("stolen")], sessionToken: adaToken), status: 400, code: 206)
            Support.expectError(try await client.put("/users/\(bobId)", ["authData": Self.anonymous("ada-device")], master: true), status: 400, code: 208)
        }
    }

    @Test("concurrent sign-ins with one new anonymous id make one user, which the others log into")
    func concurrentSignIns() async throws {
        // The hook holds each sign-up between its lookup and its insert, so that all of them race.
        var hooks = HookRegistry()
        hooks.beforeSave("_User") { _ in try await Task.sleep(for: .milliseconds(200)) }
        try await ParseTestClient.withRouter(registry: hooks, configuration: Self.configuration) { client in
            // Each answer as its HTTP status, or its Parse code for an error.
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let reply = try await client.post("/users", ["authData": Self.anonymous("shared-device")])
                        return reply.status < 300 ? reply.status : reply["code"]?.intValue ?? reply.status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == 201 }.count == 1 && answers.allSatisfy { [200, 201].contains($0) }, "\(answers)")
            #expect(try await client.get("/users", master: true)["results"]?.arrayValue?.count == 1)
        }
    }

    @Test("a login with authData runs beforeLogin (which may refuse it, making no session) and afterLogin; a sign-up runs beforeSave")
    func loginHooks() async throws {
        let log = HookLog()
        var hooks = HookRegistry()
        hooks.beforeSave("_User") { request in
            log.append("beforeSave \(request.object["authData"]?["anonymous"]?["id"]?.stringValue ?? "-")")
        }
        hooks.beforeLogin { request in
            log.append("beforeLogin \(request.user["username"]?.stringValue ?? "-")")
            if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
        }
        hooks.afterLogin { request in
            log.append("afterLogin \(request.user.objectId ?? "-") \(request.context.user?.id ?? "-")")
        }
        try await ParseTestClient.withRouter(registry: hooks, configuration: Self.configuration) { client in
            let signedUp = try await client.post("/users", ["authData": Self.anonymous("device-1"), "username": "carol"])
            let id = try #require(signedUp["objectId"]?.stringValue)
            #expect(signedUp.status == 201 && signedUp["username"] == "carol")
            #expect(try await client.post("/users", ["authData": Self.anonymous("device-1")]).status == 200)
            #expect(try await client.put("/users/\(id)", ["banned": true], master: true).status == 200)
            Support.expectError(try await client.post("/users", ["authData": Self.anonymous("device-1")]), status: 400, code: 141)
            try await Support.eventually { log.all.count == 5 }
            #expect(log.all == ["beforeSave device-1", "beforeLogin carol", "afterLogin \(id) \(id)", "beforeSave device-1", "beforeLogin carol"])
            let sessions = try await client.get("/sessions", master: true)
            #expect(sessions["results"]?.arrayValue?.count == 2)
        }
    }

    @Test("unknown providers, malformed authData and over-long ids answer 252; an app may turn anonymous users off")
    func badAuthData() async throws {
        try await AdminAPITests.withServer { admin, parse in
            let client = parse("a", "a-client", "a-master")
            let bad: [ParseValue] = [
                ["facebook": ["id": "1"]], "anonymous", [:], ["anonymous": ["id": 7]], ["anonymous": [:]], ["anonymous": .null],
                ["anonymous": ["id": .string(String(repeating: "x", count: 257))]],
            ]
            for authData in bad {
                Support.expectError(try await client.post("/users", ["authData": authData]), status: 400, code: 252)
            }
            Support.expectError(try await client.post("/users", ["authData": Self.anonymous("d"), "password": ""]), status: 400, code: 201)
            #expect(try await client.get("/users", master: true)["results"]?.arrayValue?.isEmpty == true)

            #expect(try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", ["anonymousUsers": false]).status == 200)
            Support.expectError(try await client.post("/users", ["authData": Self.anonymous("d")]), status: 400, code: 252)
            // Apple and Google are refused until the app names their audiences.
            let apple: ParseValue = ["apple": ["id": "001", "token": "x.y.z"]]
            Support.expectError(try await client.post("/users", ["authData": apple]), status: 400, code: 252)
            #expect(try await parse("b", "b-client", "b-master").post("/users", ["authData": Self.anonymous("d")]).status == 201)
        }
    }
}
