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
/// `/classes`, its own path (`/roles`, `/installations`, `/users`) or a batch operation.
@Suite("System classes: one table of rules")
struct SystemClassTests {
    @Test("roles: clients read, only the master key writes, at /roles, /classes/_Role and in a batch")
    func rolesAreMasterWrittenEverywhere() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/roles", ["name": "admins", "ACL": ["*": ["read": true]]], master: true)
            #expect(created.status == 201)
            #expect(created.headers[.location]?.hasPrefix("/parse/classes/_Role/") == true)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await client.get("/roles/\(id)")["name"] == "admins")
            #expect(try await client.get("/roles")["results"]?.arrayValue?.count == 1)
            #expect(try await client.get("/classes/_Role/\(id)")["name"] == "admins")
            for refused in [
                try await client.post("/roles", ["name": "mine"]), try await client.post("/classes/_Role", ["name": "mine"]),
                try await client.put("/roles/\(id)", ["name": "x"]), try await client.delete("/roles/\(id)"),
            ] {
                Support.expectError(refused, status: 403, code: 119)
            }
            let operation: ParseValue = ["method": "PUT", "path": .string("/parse/roles/\(id)"), "body": ["name": "x"]]
            let batch = try await client.post("/batch", ["requests": [operation]])
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 119, "\(batch.body)")
            #expect(try await client.put("/roles/\(id)", ["name": "staff"], master: true).status == 200)
            #expect(try await client.delete("/roles/\(id)", master: true).status == 200)
            #expect(try await Support.masterCount(client, "_Role") == 0)
        }
    }

    @Test("job statuses are written by the server only, sessions are their user's, installations are not listed by clients")
    func theOtherRules() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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
