import Cloudlet
import Foundation
import Testing

@testable import CloudletServer

/// Saves take no lock that every app's connections share: SQLite's process-wide allocation
/// statistics are off once Cloudlet has opened a database.
@Suite struct SQLiteProcessSettingsTests {
    @Test func savesCountNoAllocationsProcessWide() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try SQLiteObjectStorage(path: folder.appendingPathComponent("app.sqlite").path)
        for n in 0..<50 {
            var object = ParseObject(className: "Note", fields: ["n": .number(Double(n)), "text": .string("hello")])
            object.objectId = "note\(n)"
            object.createdAt = Date()
            object.updatedAt = object.createdAt
            try await storage.insert(object, outbox: nil)
        }
        #expect(try await storage.count(StorageQuery(query: ParseQuery("Note"), readerIdentities: nil)) == 50)
        #expect(SQLiteProcessSettings.memoryStatisticsAreOff)
        // With the statistics on, SQLite would count the open connections' page caches here.
        #expect(SQLiteProcessSettings.memoryInUse == 0)
    }
}
