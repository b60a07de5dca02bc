import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// A database made before the full-text index has its objects indexed as it opens: they are found
/// by `$text`, and later writes keep the index in step with the text indexed then.
@Suite struct TextIndexMigrationTests {
    static func subjects(_ store: SQLiteObjectStore, _ term: String) async throws -> [String] {
        let query = ParseQuery("Posts").matchesText(key: "title", text: term).order(by: "title")
        return try await store.find(StorageQuery(query: query, readerIdentities: nil)).compactMap { $0["title"]?.stringValue }
    }

    @Test func earlierObjectsBecomeSearchable() async throws {
        let old = try await OldAppDatabase(madeUpTo: "relations") { db in
            try db.execute(
                sql: """
                    INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES
                        ('Posts', 'p1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', NULL, '{"title":"Coffee at dawn","n":1}'),
                        ('Posts', 'p2', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', NULL, '{"title":"Tea at noon"}'),
                        ('_Session', 's1', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', NULL, '{"title":"Coffee"}');
                    """)
        }
        defer { old.remove() }
        let database = try SQLiteAppDatabase(path: old.path)
        let store = SQLiteObjectStore(database)
        #expect(try await Self.subjects(store, "coffee") == ["Coffee at dawn"])
        #expect(try await Self.subjects(store, "at") == ["Coffee at dawn", "Tea at noon"])
        let indexed = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM text_fields") }
        #expect(indexed == 2, "one row per String field of the searchable classes")

        // A write after the migration replaces the text indexed by it.
        try await database.pool.write { db in
            try db.execute(sql: #"UPDATE objects SET data = '{"title":"Iced tea"}' WHERE id = 'p1'"#)
            try db.execute(sql: "DELETE FROM objects WHERE id = 'p2'")
            try db.execute(sql: "INSERT INTO text_index (text_index, rank) VALUES ('integrity-check', 0)")
        }
        #expect(try await Self.subjects(store, "coffee") == [])
        #expect(try await Self.subjects(store, "tea") == ["Iced tea"])
        let left = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM text_fields") }
        #expect(left == 1)
    }
}
