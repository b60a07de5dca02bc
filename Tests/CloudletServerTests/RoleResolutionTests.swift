import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// Resolving a user's roles against hostile role graphs stored in a real database: long cycles,
/// wide fan-outs and self-loops end within the bounds, with a clear error past them; and roles made
/// before relations (arrays of pointers in `users` and `roles`) keep working after the migration.
@Suite("Roles: resolution in the store")
struct RoleResolutionTests {
    /// A fresh app database in a temporary folder, removed after `body`.
    static func withDatabase(_ body: (SQLiteAppDatabase, AppStores) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-role-graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path)
        try await body(database, AppStores(database))
    }

    /// Stores roles `r0`…`r<count-1>` named `Role0`… straight into the tables, the user `u1` a
    /// member of `r0`, and `links(i)` the roles whose `roles` relation holds `r<i>`.
    static func storeGraph(_ database: SQLiteAppDatabase, count: Int, links: @escaping @Sendable (Int) -> [Int]) async throws {
        try await database.pool.write { db in
            let role = try db.makeStatement(
                sql: "INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES ('_Role', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', NULL, ?)")
            let link = try db.makeStatement(
                sql: "INSERT INTO relations (owning_class, owning_id, field, related_class, related_id) VALUES ('_Role', ?, ?, ?, ?)")
            for index in 0..<count {
                try role.execute(arguments: ["r\(index)", #"{"name":"Role\#(index)"}"#])
                for owner in links(index) { try link.execute(arguments: ["r\(owner)", "roles", "_Role", "r\(index)"]) }
            }
            try link.execute(arguments: ["r0", "users", "_User", "u1"])
        }
    }

    static func expectTooMany(_ stores: AppStores, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let names = try await stores.accounts.roleNames(ofUser: "u1")
            Issue.record("resolved \(names.count) roles past the bounds", sourceLocation: sourceLocation)
        } catch let error as ParseError {
            #expect(error.code == 119 && error.httpStatus == 403, sourceLocation: sourceLocation)
            #expect(error.message.contains(what), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a 10,000-role cycle stops at the bound on depth with 119")
    func longCycle() async throws {
        try await Self.withDatabase { database, stores in
            let count = 10_000
            try await Self.storeGraph(database, count: count) { [($0 + 1) % count] }
            await Self.expectTooMany(stores, "more than \(UserRoles.maximumDepth) levels deep")
        }
    }

    @Test("a chain exactly as deep as the bound resolves; one level more is refused")
    func depthBound() async throws {
        try await Self.withDatabase { database, stores in
            let count = UserRoles.maximumDepth + 1
            try await Self.storeGraph(database, count: count) { $0 + 1 < count ? [$0 + 1] : [] }
            #expect(try await stores.accounts.roleNames(ofUser: "u1").count == count)
        }
        try await Self.withDatabase { database, stores in
            let count = UserRoles.maximumDepth + 2
            try await Self.storeGraph(database, count: count) { $0 + 1 < count ? [$0 + 1] : [] }
            await Self.expectTooMany(stores, "more than \(UserRoles.maximumDepth) levels deep")
        }
    }

    @Test("10,000 roles inherited from one stop at the bound on roles with 119")
    func wideFanOut() async throws {
        try await Self.withDatabase { database, stores in
            try await Self.storeGraph(database, count: 10_000) { $0 == 0 ? Array(1..<10_000) : [] }
            await Self.expectTooMany(stores, "more than \(UserRoles.maximumRoles) roles")
        }
    }

    @Test("a short cycle, with a self-loop, resolves each role once")
    func shortCycle() async throws {
        try await Self.withDatabase { database, stores in
            try await Self.storeGraph(database, count: 3) { index in index == 0 ? [0, 1] : [(index + 1) % 3] }
            #expect(try await stores.accounts.roleNames(ofUser: "u1") == ["Role0", "Role1", "Role2"])
            #expect(try await stores.accounts.roleNames(ofUser: "nobody").isEmpty)
        }
    }

    @Test("a dense graph stops at the bound on links read with 119, before reading it all")
    func denseGraph() async throws {
        try await Self.withDatabase { database, stores in
            // 300 roles, each inherited by every other: few roles, 90,000 links.
            try await Self.storeGraph(database, count: 300) { _ in Array(0..<300) }
            await Self.expectTooMany(stores, "more than \(UserRoles.maximumLinks) links")
        }
    }

    @Test("roles made before relations keep their members and inherited roles after the migration")
    func arraysBecomeRelations() async throws {
        let old = try await OldAppDatabase(madeUpTo: "relations") { db in
            let user = #"{"__type":"Pointer","className":"_User","objectId":"u1"}"#
            let member = #"{"__type":"Pointer","className":"_Role","objectId":"r1"}"#
            try db.execute(
                sql: """
                    INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES
                        ('_Role', 'r1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"*":{"read":true}}',
                         '{"name":"Staff","users":[\(user),{"__type":"Pointer","className":"Posts","objectId":"p1"},7]}'),
                        ('_Role', 'r2', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"*":{"read":true}}',
                         '{"name":"Managers","roles":[\(member)],"users":[]}'),
                        ('Posts', 'p1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', NULL, '{"users":[\(user)]}');
                    INSERT INTO fields (class, field, type) VALUES ('_Role', 'users', 'Array'), ('_Role', 'roles', 'Array');
                    """)
        }
        defer { old.remove() }
        let database = try SQLiteAppDatabase(path: old.path)
        let stores = AppStores(database)
        #expect(try await stores.accounts.roleNames(ofUser: "u1") == ["Managers", "Staff"])
        let staff = try #require(try await stores.objects.fetch("_Role", id: "r1"))
        #expect(staff["users"] == .relation(className: "_User"))
        #expect(try await stores.objects.fetch("_Role", id: "r2")?["roles"] == .relation(className: "_Role"))
        #expect(try await stores.objects.fetch("Posts", id: "p1")?["users"]?.arrayValue?.count == 1, "other classes are left alone")
        let members = try await stores.objects.find(
            StorageQuery(
                query: ParseQuery("_User", constraints: ["$relatedTo": ["object": .pointer(className: "_Role", objectId: "r1"), "key": "users"]]),
                readerIdentities: nil))
        #expect(members.isEmpty, "u1 is no stored user; its relation row is there all the same")
        let rows = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT owning_id, field, related_class, related_id FROM relations ORDER BY owning_id")
                .map { "\($0["owning_id"] as String) \($0["field"] as String) \($0["related_class"] as String) \($0["related_id"] as String)" }
        }
        #expect(rows == ["r1 users _User u1", "r2 roles _Role r1"])
        // The relation's members change with AddRelation and RemoveRelation from then on.
        var removing = RelationChange(targetClass: "_User")
        removing.removing = ["u1"]
        _ = try await stores.objects.update(
            "_Role", id: "r1", changes: ObjectChanges(fields: ["users": .operation(.relation(removing))]), updatedAt: Date(),
            check: { _ in }, outbox: nil)
        #expect(try await stores.accounts.roleNames(ofUser: "u1").isEmpty)
    }
}
