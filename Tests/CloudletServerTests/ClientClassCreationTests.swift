import Cloudlet
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// The `allowClientClassCreation` app setting, changed through the admin API on a running host.
@Suite("Client class creation")
struct ClientClassCreationTests {
    @Test("allowed by default; when false a client reaches no class that does not exist (119), the master key creates it, the other app is untouched")
    func setting() async throws {
        try await AdminAPITests.withServer { admin, parse in
            let a = parse("a", "a-client", "a-master"), b = parse("b", "b-client", "b-master")
            #expect(try await a.post("/classes/Early", ["n": 1]).status == 201, "clients create classes by default")

            let changed = try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", ["allowClientClassCreation": false])
            #expect(changed.status == 200, "\(changed.body)")
            #expect(try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", ["allowClientClassCreation": "maybe"]).status == 400)

            let refused = try await a.post("/classes/Late", ["n": 1])
            Support.expectError(refused, status: 403, code: 119)
            #expect(refused["error"] == "This user is not allowed to access non-existent class: Late")
            Support.expectError(try await a.get("/classes/Late"), status: 403, code: 119)
            let batch = try await a.post("/batch", ["requests": [["method": "POST", "path": "/parse/classes/Late", "body": ["n": 1]]]])
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 119, "\(batch.body)")
            #expect(try await a.post("/classes/Early", ["n": 2]).status == 201, "a class that exists stays open")
            #expect(try await a.post("/users", ["username": "ada", "password": "pw"]).status == 201, "Parse's own classes always exist")

            #expect(try await a.post("/classes/Late", ["n": 1], master: true).status == 201)
            #expect(try await a.post("/classes/Late", ["n": 2]).status == 201, "once the master key made it, clients use it")
            #expect(try await a.post("/schemas/Planned", [:], master: true).status == 200)
            #expect(try await a.post("/classes/Planned", ["n": 1]).status == 201)

            #expect(try await b.post("/classes/Late", ["n": 1]).status == 201, "the setting is app a's only")
            Support.expectError(try await b.get("/schemas/Planned", master: true), status: 400, code: 103)
        }
    }
}
