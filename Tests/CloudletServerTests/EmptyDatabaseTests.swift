import Foundation
import GRDB
import Testing

@testable import CloudletSQLite

/// A new app database starts as a copy of one migrated once per process: the same tables, indexes
/// and triggers as a database migrated from nothing, every migration recorded, and an existing
/// file never overwritten.
@Suite struct EmptyDatabaseTests {
    /// Every schema object's SQL, and the migrations recorded, in `database`.
    static func shape(_ database: SQLiteAppDatabase) async throws -> (schema: [String], migrations: [String]) {
        try await database.pool.read { db in
            (
                try String.fetchAll(db, sql: "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            )
        }
    }

    @Test func aCopiedDatabaseIsTheOneMigrationsMakeAndAnExistingFileIsKept() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copied = try SQLiteAppDatabase(path: folder.appendingPathComponent("copied.sqlite").path)
        let migrated = try SQLiteAppDatabase(
            path: folder.appendingPathComponent("migrated.sqlite").path, checkpointInlinePages: SQLiteCheckpointer.defaultInlinePages,
            fromImage: false)
        let (copiedShape, migratedShape) = (try await Self.shape(copied), try await Self.shape(migrated))
        #expect(copiedShape.schema == migratedShape.schema)
        #expect(copiedShape.migrations == migratedShape.migrations)
        #expect(copiedShape.migrations.count == SQLiteMigrations.migrator.migrations.count)

        // A file already there is opened as it is, not replaced by the copy.
        try await migrated.pool.write { db in try db.execute(sql: "INSERT INTO text_classes (class) VALUES ('Kept')") }
        _ = try await migrated.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        let reopened = try SQLiteAppDatabase(path: folder.appendingPathComponent("migrated.sqlite").path)
        #expect(try await reopened.pool.read { db in try String.fetchAll(db, sql: "SELECT class FROM text_classes") } == ["Kept"])
    }
}
