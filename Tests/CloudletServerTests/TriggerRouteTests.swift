import Cloudlet
import CloudletTesting
import GRDB
import HTTPTypes
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer
import CloudletServerTesting

@Suite("Find and login triggers through HTTP")
struct TriggerRouteTests {
    @Test("a query with count=1 runs beforeFind once, and its results and count follow the hook's query", arguments: TestStore.allCases)
    func queryAndCountFollowTheHooksQuery(store: TestStore) async throws {
        let log = HookLog()
        var registry = HookRegistry()
        registry.beforeFind("Posts") { request in
            log.append("count \(request.isCount)")
            request.query.constraints["hidden"] = ["$ne": true]
            request.query.limit = min(request.query.limit, 2)
        }
        registry.afterFind("Posts") { request in
            request.objects = request.objects.map { var object = $0; object["seen"] = true; return object }
        }
        try await store.withRouter(registry: registry) { client in
            for n in 1...4 { try await Support.create(client, "Posts", ["n": .number(Double(n)), "hidden": .bool(n == 1)]) }
            let reply = try await client.get("/classes/Posts", query: ["count": 1, "order": "n"])
            #expect(reply.status == 200)
            #expect(reply["count"] == 3)
            #expect(reply["results"]?.arrayValue?.map { $0["n"] } == [2, 3])
            #expect(reply["results"]?.arrayValue?.allSatisfy { $0["seen"] == true } == true)
            #expect(log.all == ["count true"])
        }
    }

    @Test("GET /classes/X/id runs both find hooks; a refusal answers the hook's code as a Parse error", arguments: TestStore.allCases)
    func getRunsTheFindHooks(store: TestStore) async throws {
        var registry = HookRegistry()
        registry.beforeFind("Posts") { request in
            if request.isGet, request.context.user == nil, !request.context.isMaster { throw HookError.validation("log in to read posts") }
        }
        registry.afterFind("Posts") { request in
            request.objects = request.objects.map { var object = $0; object["title"] = "redacted"; return object }
        }
        try await store.withRouter(registry: registry) { client in
            let id = try await Support.create(client, "Posts", ["title": "secret plans"])
            let fetched = try await client.get("/classes/Posts/\(id)", master: true)
            #expect(fetched.status == 200 && fetched["title"] == "redacted" && fetched["objectId"] == .string(id))
            Support.expectError(try await client.get("/classes/Posts/\(id)"), status: 400, code: 142)
        }
    }

    @Test("POST /login of a banned user answers the hook's error and makes no session; logout runs afterLogout", arguments: TestStore.allCases)
    func loginAndLogout(store: TestStore) async throws {
        let log = HookLog()
        var registry = HookRegistry()
        registry.beforeLogin { request in
            if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
        }
        registry.afterLogout { request in
            let session = request.session
            log.append(
                "logout \(session["installationId"]?.stringValue ?? "-") \(request.context.user != nil) \(session.objectId?.count ?? 0) "
                    + (session["createdWith"]?["action"]?.stringValue ?? "-"))
        }
        try await store.withRouter(registry: registry) { client in
            #expect(try await client.post("/users", ["username": "mallory", "password": "pw", "banned": true]).status == 201)
            #expect(try await client.post("/users", ["username": "alice", "password": "pw"]).status == 201)
            Support.expectError(try await client.post("/login", ["username": "mallory", "password": "pw"]), status: 400, code: 141)
            let installation: HTTPFields = [HTTPField.Name("X-Parse-Installation-Id")!: "phone-1"]
            let login = try await client.request(.post, "/login", body: ["username": "alice", "password": "pw"], headers: installation)
            let token = try #require(login["sessionToken"]?.stringValue)
            #expect(try await client.post("/logout", sessionToken: token).status == 200)
            Support.expectError(try await client.get("/users/me", sessionToken: token), status: 400, code: 209)
            #expect(log.all == ["logout phone-1 true 10 login"])
        }
    }

    @Test func aRefusedLoginWritesNoSessionRow() async throws {
        var hooks = HookRegistry()
        hooks.beforeLogin { request in
            if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
        }
        let harness = try HookHarness(registry: hooks)
        try await harness.signUp(username: "mallory", password: "pw", ["banned": true])
        let objects = try #require(harness.runtime.context.stores.objects as? SQLiteObjectStore)
        let sessions = { try await objects.database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sessions") ?? 0 } }
        let afterSignUp = try await sessions()
        await #expect(throws: ParseError.self) { try await harness.logIn(username: "mallory", password: "pw") }
        #expect(try await sessions() == afterSignUp)
    }
}
