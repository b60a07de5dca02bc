import Cloudlet
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// Saves take no lock that every app's connections share: SQLite's process-wide allocation
/// statistics are off once Cloudlet has opened a database.
@Suite struct SQLiteProcessSettingsTests {
    @Test func savesCountNoAllocationsProcessWide() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            try await TemporaryStorage.insert(50, "Note", idPrefix: "note", bytes: 5, into: objects)
            #expect(try await objects.count(StorageQuery(query: ParseQuery("Note"), readerIdentities: nil)) == 50)
            #expect(SQLiteProcessSettings.memoryStatisticsAreOff)
            // With the statistics on, SQLite would count the open connections' page caches here.
            #expect(SQLiteProcessSettings.memoryInUse == 0)
        }
    }
}
