import Cloudlet
import CloudletTesting
import HTTPTypes
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer
import CloudletServerTesting

/// The system classes' rules (``SystemClass``) hold the same whichever route reaches the class:
/// `/classes`, its own path (`/installations`, `/users`) or a batch operation. (Roles: RoleRoutesTests.)
@Suite("System classes: one table of rules")
struct SystemClassTests {
    @Test("push statuses: clients read, only the master key writes, at /classes/_PushStatus and in a batch", arguments: TestStore.allCases)
    func pushStatusesAreMasterWrittenEverywhere(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "_PushStatus", ["status": "pending", "ACL": ["*": ["read": true]]], master: true)
            #expect(try await client.get("/classes/_PushStatus/\(id)").status == 200)
            for refused in [
                try await client.post("/classes/_PushStatus", ["status": "pending"]),
                try await client.put("/classes/_PushStatus/\(id)", ["status": "x"]), try await client.delete("/classes/_PushStatus/\(id)"),
            ] {
                Support.expectError(refused, status: 403, code: 119)
            }
            let operation: ParseValue = ["method": "PUT", "path": .string("/parse/classes/_PushStatus/\(id)"), "body": ["status": "x"]]
            let batch = try await client.post("/batch", ["requests": [operation]])
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 119, "\(batch.body)")
            #expect(try await client.get("/classes/_PushStatus/\(id)", master: true)["status"] == "pending")
        }
    }

    @Test("job statuses are written by the server only, sessions are their user's, installations are not listed by clients", arguments: TestStore.allCases)
    func theOtherRules(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.post("/classes/_JobStatus", ["status": "running"], master: true), status: 403, code: 119)
            #expect(try await client.get("/classes/_Session", master: true).status == 200)
            Support.expectError(try await client.get("/classes/_Session"), status: 400, code: 209)
            Support.expectError(try await client.post("/classes/_Session", [:]), status: 400, code: 209)
            Support.expectError(try await client.get("/installations"), status: 403, code: 119)
            Support.expectError(try await client.get("/classes/_Installation"), status: 403, code: 119)
            #expect(try await client.get("/installations", master: true).status == 200)
        }
    }

    @Test func theTableNamesEachSystemClassOnce() {
        #expect(Set(SystemClass.all.keys) == ["_User", "_Installation", "_Session", "_Role", "_PushStatus", "_JobStatus"])
        #expect(SystemClass.all.values.filter { $0.saves == .accounts }.map(\.name) == ["_User"])
        #expect(SystemClass.all.values.filter { $0.saves == .sessions }.map(\.name) == ["_Session"])
        #expect(SystemClass.named("Posts") == nil)
    }
}
