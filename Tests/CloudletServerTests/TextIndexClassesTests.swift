import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// The text index covers a class from its first search on: that search indexes what the class
/// holds, later writes to it are indexed as they commit, and a class never searched has no index.
@Suite struct TextIndexClassesTests {
    static func rows(_ database: SQLiteAppDatabase, _ className: String) async throws -> Int {
        try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM text_fields WHERE class = ?", arguments: [className]) ?? 0
        }
    }

    static func titles(_ store: SQLiteObjectStore, _ className: String, _ term: String) async throws -> [String] {
        let query = ParseQuery(className).matchesText(key: "title", text: term).order(by: "title")
        return try await store.find(StorageQuery(query: query, readerIdentities: nil)).compactMap { $0["title"]?.stringValue }
    }

    @Test func aClassIsIndexedFromItsFirstSearchOn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-text-classes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path)
        let store = SQLiteObjectStore(database)
        let now = Date()
        func save(_ className: String, _ id: String, _ title: String) async throws {
            let object = ParseObject(className: className, objectId: id, createdAt: now, updatedAt: now, fields: ["title": .string(title)])
            try await store.insert(object, outbox: nil)
        }
        try await save("Posts", "p1", "Coffee at dawn")
        try await save("Notes", "n1", "Coffee notes")
        #expect(try await Self.rows(database, "Posts") == 0, "no class is indexed before it is searched")

        #expect(try await Self.titles(store, "Posts", "coffee") == ["Coffee at dawn"], "the first search finds what was saved before it")
        try await save("Posts", "p2", "Coffee at noon")
        #expect(try await Self.titles(store, "Posts", "coffee") == ["Coffee at dawn", "Coffee at noon"])
        #expect(try await Self.rows(database, "Posts") == 2)
        #expect(try await Self.rows(database, "Notes") == 0, "a class never searched stays out of the index")

        // Another process's store on the same file finds the class covered and indexes nothing again.
        let other = SQLiteObjectStore(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path))
        #expect(try await Self.titles(other, "Posts", "noon") == ["Coffee at noon"])
        #expect(try await Self.rows(database, "Posts") == 2)
    }
}
