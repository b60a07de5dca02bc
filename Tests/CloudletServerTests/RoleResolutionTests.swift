import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// Roles made before relations (arrays of pointers in `users` and `roles`) keep working after the
/// migration. Resolution against hostile role graphs runs on both stores in `RoleStoreTests`.
@Suite("Roles: made before relations")
struct RoleResolutionTests {
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
