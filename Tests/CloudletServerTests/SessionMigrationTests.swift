import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// A database made before sessions were `_Session` objects keeps its sessions: each gets an object
/// id, reads as a login, and is listed with its user's sessions.
@Suite struct SessionMigrationTests {
    @Test func earlierSessionsBecomeSessionObjects() async throws {
        let old = try await OldAppDatabase(madeUpTo: "global_config") { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, user_id, installation_id, created_at, expires_at) VALUES
                        ('hash-1', 'user1', 'phone-1', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
                        ('hash-2', 'user1', NULL, '2026-01-02T00:00:00.000Z', '2027-01-02T00:00:00.000Z');
                    """)
        }
        defer { old.remove() }
        let path = old.path
        let stores = AppStores(try SQLiteAppDatabase(path: path))
        let first = try #require(try await stores.accounts.session(tokenHash: "hash-1"))
        #expect(first.objectId.count == 10 && first.origin == .login && first.updatedAt == first.createdAt && first.fields.isEmpty)
        let listed = try await stores.accounts.sessions(matching: SessionFilter(userId: "user1"), skip: 0, limit: 10)
        #expect(listed.map(\.tokenHash) == ["hash-1", "hash-2"])
        #expect(Set(listed.map(\.objectId)).count == 2)

        // A new session from the same installation ends the earlier one there.
        let now = Date()
        try await stores.accounts.insertSession(
            SessionRecord(tokenHash: "hash-3", userId: "user1", installationId: "phone-1", createdAt: now, expiresAt: now + 60))
        #expect(try await stores.accounts.session(tokenHash: "hash-1") == nil)
        #expect(try await stores.accounts.countSessions(matching: SessionFilter(userId: "user1")) == 2)
    }
}
