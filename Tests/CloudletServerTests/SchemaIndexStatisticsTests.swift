import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// The planner's statistics follow an app's data: an index made through `/schemas` on a class with
/// no objects yet serves `order` once the objects have come, after the database's upkeep has run.
@Suite struct SchemaIndexStatisticsTests {
    @Test func anIndexMadeOnAnEmptyClassServesOrderOnceTheUpkeepHasRefreshedTheStatistics() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            let index = StoredClassSchema.IndexKey(field: "n", ascending: true)
            try await stores.schemas.createClass(StoredClassSchema(className: "Games", indexes: ["by_score": [index]]))
            // One commit each: past the pages that make a refresh due.
            try await TemporaryStorage.insert(2_000, "Games", idPrefix: "g", bytes: 10, into: stores.objects)
            let query = ParseQuery("Games", order: ["-n"], limit: 50)
            let stale = try await SchemaIndexPlanTests.plan(database, query)
            #expect(!SchemaIndexPlanTests.plan(stale, uses: "by_score"), "statistics of an empty class: \(stale)")

            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await database.maintenance.run() }
                let deadline = Date().addingTimeInterval(10)
                while database.statistics.completedRefreshes == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
                group.cancelAll()
            }
            #expect(database.statistics.completedRefreshes == 1)
            let fresh = try await SchemaIndexPlanTests.plan(database, query)
            #expect(SchemaIndexPlanTests.plan(fresh, uses: "by_score"), "\(fresh)")
            let ids = try await stores.objects.find(StorageQuery(query: query, readerIdentities: nil)).compactMap(\.objectId)
            #expect(ids == (1_950..<2_000).reversed().map { "g\($0)" })
        }
    }
}
