import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// The word-by-word checks of `$text` (a search sensitive to case or diacritics, or not in
/// English) share the query's budget of match steps with `$regex`.
@Suite struct TextSearchStoreTests {
    @Test("a check runs only on rows the reader may read, within the query's budget of steps")
    func checksAreBounded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = SQLiteObjectStore(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path, regexStepsPerQuery: 100_000))
        let now = Date()
        let long = Array(repeating: "Coffee", count: 300).joined(separator: " ")
        for index in 0..<53 {
            let isPublic = index < 3
            let object = ParseObject(
                className: "Notes", objectId: String(format: "id%07d", index), createdAt: now, updatedAt: now,
                acl: isPublic ? nil : .only(readers: ["owner"], writers: ["owner"]),
                fields: ["body": .string(isPublic ? "Coffee \(index)" : long)])
            try await storage.insert(object, outbox: nil)
        }
        let query = ParseQuery("Notes", limit: 1000).matchesText(key: "body", text: "Coffee", caseSensitive: true)
        // Each hidden row would cost ~8,000 steps, 400,000 for all: far past the budget.
        let visible = try await storage.find(StorageQuery(query: query, readerIdentities: ["*"]))
        #expect(visible.compactMap { $0["body"]?.stringValue }.sorted() == ["Coffee 0", "Coffee 1", "Coffee 2"])
        #expect(try await storage.count(StorageQuery(query: query, readerIdentities: ["*"])) == 3)

        let error = await #expect(throws: ParseError.self) {
            try await storage.find(StorageQuery(query: query, readerIdentities: nil))
        }
        #expect(error?.code == 102)
        // Decided by the index alone, the same search reads no text and stays within the budget.
        let folded = ParseQuery("Notes", limit: 1000).matchesText(key: "body", text: "Coffee")
        #expect(try await storage.find(StorageQuery(query: folded, readerIdentities: nil)).count == 53)
    }
}
