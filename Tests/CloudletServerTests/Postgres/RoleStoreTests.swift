import Cloudlet
@testable import CloudletRuntime
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite

/// The roles a user holds on both stores: found through the `users` and `roles` relations that
/// object writes keep, and bounded alike against hostile role graphs (long cycles, wide fan-outs,
/// dense graphs), with 119 past a bound.
@Suite struct RoleStoreTests {
    /// Stores roles `r0`…`r<count-1>` named `Role0`… straight into the app's tables, the user `u1`
    /// a member of `r0`, and `links(i)` the roles whose `roles` relation holds `r<i>`.
    static func storeGraph(_ app: TestApp, count: Int, links: @escaping @Sendable (Int) -> [Int]) async throws {
        switch app {
        case .sqlite(let database):
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
        case .postgres(let database, let schema):
            _ = try await PostgresObjectStore(database, schema: schema)
            var roles = PostgresBindings()
            roles.append((0..<count).map { "r\($0)" })
            roles.append((0..<count).map { #"{"name":"Role\#($0)"}"# })
            try await database.execute(
                """
                INSERT INTO \(schema.quoted).objects (class, id, created_at, updated_at, data)
                SELECT '_Role', id, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', data::jsonb FROM unnest($1::text[], $2::text[]) AS r (id, data)
                """, roles)
            let pairs = (0..<count).flatMap { index in links(index).map { ("r\($0)", "r\(index)") } } + [("r0", "u1")]
            var relations = PostgresBindings()
            relations.append(pairs.map(\.0))
            relations.append(pairs.map { $0.1 == "u1" ? "users" : "roles" })
            relations.append(pairs.map { $0.1 == "u1" ? "_User" : "_Role" })
            relations.append(pairs.map(\.1))
            try await database.execute(
                """
                INSERT INTO \(schema.quoted).relations (owning_class, owning_id, field, related_class, related_id)
                SELECT '_Role', o, f, c, r FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS l (o, f, c, r)
                """, relations)
        }
    }

    /// Runs `body` with the accounts of a new app of `store` whose role graph `storeGraph` makes.
    static func withGraph(
        _ store: TestStore, count: Int, links: @escaping @Sendable (Int) -> [Int], _ body: (any AccountStorage) async throws -> Void
    ) async throws {
        try await store.with({ app in
            {
                try await storeGraph(app, count: count, links: links)
                return try await app.accounts().accounts
            }
        }) { accounts, _ in try await body(accounts) }
    }

    static func expectTooMany(_ accounts: any AccountStorage, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: ParseError.self, sourceLocation: sourceLocation) { try await accounts.roleNames(ofUser: "u1") }
        #expect(error?.code == 119 && error?.httpStatus == 403, sourceLocation: sourceLocation)
        #expect(error?.message.contains(what) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test(arguments: TestStore.allCases) func rolesComeFromTheRelationsObjectWritesKeep(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.accounts() } }) { stores, reopen in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            func role(_ id: String, _ name: String) async throws {
                var role = ParseObject(className: "_Role", fields: ["name": .string(name)])
                role.objectId = id
                role.createdAt = now
                role.updatedAt = now
                try await stores.objects.insert(role, nil)
            }
            func relate(_ id: String, _ field: String, _ target: String, adding: Set<String> = [], removing: Set<String> = []) async throws {
                var change = RelationChange(targetClass: target)
                change.adding = adding
                change.removing = removing
                _ = try await stores.objects.update("_Role", id, ObjectChanges(fields: [field: .operation(.relation(change))]), now, { _ in }, nil)
            }
            try await role("staff", "Staff")
            try await role("managers", "Managers")
            try await role("board", "Board")
            try await relate("staff", "users", "_User", adding: ["u1", "u2"])
            try await relate("managers", "roles", "_Role", adding: ["staff"])
            try await relate("board", "roles", "_Role", adding: ["managers"])
            let other = try await reopen()
            #expect(try await other.accounts.roleNames(ofUser: "u1") == ["Board", "Managers", "Staff"], "read by another node")
            try await relate("staff", "users", "_User", removing: ["u1"])
            #expect(try await stores.accounts.roleNames(ofUser: "u1").isEmpty)
            _ = try await stores.objects.delete("_Role", "managers", { _ in }, nil)
            #expect(try await other.accounts.roleNames(ofUser: "u2") == ["Staff"], "a deleted role's relations go with it")
        }
    }

    @Test(arguments: TestStore.allCases) func aShortCycleWithASelfLoopResolvesEachRoleOnce(_ store: TestStore) async throws {
        try await Self.withGraph(store, count: 3, links: { index in index == 0 ? [0, 1] : [(index + 1) % 3] }) { (accounts: any AccountStorage) async throws in
            #expect(try await accounts.roleNames(ofUser: "u1") == ["Role0", "Role1", "Role2"])
            #expect(try await accounts.roleNames(ofUser: "nobody").isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func aChainAsDeepAsTheBoundResolvesAndOneLevelMoreIsRefused(_ store: TestStore) async throws {
        let deepest = UserRoles.maximumDepth + 1
        try await Self.withGraph(store, count: deepest, links: { $0 + 1 < deepest ? [$0 + 1] : [] }) { (accounts: any AccountStorage) async throws in
            #expect(try await accounts.roleNames(ofUser: "u1").count == deepest)
        }
        try await Self.withGraph(store, count: deepest + 1, links: { $0 < deepest ? [$0 + 1] : [] }) { (accounts: any AccountStorage) async throws in
            await Self.expectTooMany(accounts, "more than \(UserRoles.maximumDepth) levels deep")
        }
    }

    @Test(arguments: TestStore.allCases) func aLongCycleAWideFanOutAndADenseGraphStopAtTheirBounds(_ store: TestStore) async throws {
        try await Self.withGraph(store, count: 10_000, links: { [($0 + 1) % 10_000] }) { (accounts: any AccountStorage) async throws in
            await Self.expectTooMany(accounts, "more than \(UserRoles.maximumDepth) levels deep")
        }
        try await Self.withGraph(store, count: 10_000, links: { $0 == 0 ? Array(1..<10_000) : [] }) { (accounts: any AccountStorage) async throws in
            await Self.expectTooMany(accounts, "more than \(UserRoles.maximumRoles) roles")
        }
        // 300 roles, each inherited by every other: few roles, 90,000 links.
        try await Self.withGraph(store, count: 300, links: { _ in Array(0..<300) }) { (accounts: any AccountStorage) async throws in
            await Self.expectTooMany(accounts, "more than \(UserRoles.maximumLinks) links")
        }
    }
}
