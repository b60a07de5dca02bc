import Cloudlet
import CloudletServer
import Foundation
import GRDB
import HTTPTypes
import Testing

@Suite("App ids: unique regardless of case, reserved names refused")
struct AppIdRuleTests {
    @Test("an id differing from an existing one only in case is refused with 137, naming the existing app", arguments: TestStore.allCases)
    func caseInsensitiveUniqueness(_ store: TestStore) async throws {
        try await AppRegistryTests.withRegistry(on: store) { registry, _ in
            _ = try await registry.create("shop")
            let error = try await #require(throws: ParseError.self) { try await registry.create("Shop") }
            #expect(error.code == 137)
            #expect(error.message.contains("differs from the app shop only in case"))
            await #expect(throws: ParseError.self) { try await registry.create("SHOP") }
            #expect(try await registry.list().map(\.id) == ["shop"])
        }
    }

    @Test("reserved device names in any case, ids not starting with a letter or digit, are refused with 142")
    func reservedNames() async throws {
        try await AppRegistryTests.withRegistry { registry, _ in
            for id in ["CON", "con", "Prn", "AUX", "nul", "COM1", "com9", "LPT1", "lpt0", "-", "_", "-shop", "_shop", ""] {
                let error = try await #require(throws: ParseError.self, "\(id)") { try await registry.create(id) }
                #expect(error.code == 142, "\(id)")
            }
            for id in ["console", "com10", "a", "9lives", "shop_2", "my-app"] {
                _ = try await registry.create(id)
            }
        }
    }

    @Test("a registry that already holds ids differing in case, or a reserved one, keeps serving them")
    func existingRegistriesKeepWorking() async throws {
        try await AppRegistryTests.withRegistry { registry, folder in
            _ = try await registry.create("shop")
            // Ids made before the rule existed, written as an older version did.
            let database = try DatabaseQueue(path: folder.appendingPathComponent("host.sqlite").path)
            try await database.write { db in
                for id in ["Shop", "_old"] {
                    try db.execute(
                        sql: """
                            INSERT INTO apps (id, settings, created_at, updated_at)
                            SELECT ?, settings, created_at, updated_at FROM apps WHERE id = 'shop'
                            """, arguments: [id])
                }
            }
            let reopened = try AppRegistry(dataDirectory: folder.path)
            #expect(try await reopened.list().map(\.id) == ["Shop", "_old", "shop"])
            try await reopened.update("_old") { $0.workerCount = 3 }
            #expect(try await reopened.app("_old")?.settings.workerCount == 3)
            _ = try await reopened.ensure("Shop", settings: AppSettings())
        }
    }

    @Test("the admin API refuses a case twin (409/137) and a reserved name (400/142)")
    func adminAPI() async throws {
        try await AdminAPITests.withServer { admin, _ in
            Support.expectError(try await AdminAPITests.asOperator(admin, .post, "/admin/apps", ["id": "A"]), status: 409, code: 137)
            Support.expectError(try await AdminAPITests.asOperator(admin, .post, "/admin/apps", ["id": "con"]), status: 400, code: 142)
            Support.expectError(try await AdminAPITests.asOperator(admin, .post, "/admin/apps", ["id": "_"]), status: 400, code: 142)
        }
    }
}
