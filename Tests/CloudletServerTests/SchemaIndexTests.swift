import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// Indexes made through `/schemas` are SQLite indexes on the JSON values of the class's objects.
@Suite struct SchemaIndexTests {
    /// The SQL of the SQLite index of `className` named `name` through `/schemas`, if there is one.
    static func indexSQL(_ database: SQLiteAppDatabase, _ className: String, _ name: String) async throws -> String? {
        try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: ["schema_\(className.count)_\(className)_\(name)"])
        }
    }

    @Test func anIndexIsAPartialExpressionIndexOfItsClassAndADeletedIndexIsDropped() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            let schema = StoredClassSchema(
                className: "Games", fieldTypes: ["score": .number, "name": .string],
                indexes: ["by_score": [StoredClassSchema.IndexKey(field: "name", ascending: true), StoredClassSchema.IndexKey(field: "score", ascending: false)]])
            try await stores.schemas.createClass(schema)
            let sql = try #require(try await Self.indexSQL(database, "Games", "by_score"))
            #expect(sql.contains("json_extract(data, '$.name') ASC, json_extract(data, '$.score') DESC") && sql.contains("WHERE class = 'Games'"), "\(sql)")
            #expect(try await stores.schemas.storedClass("Games")?.indexes == schema.indexes)

            var change = SchemaChange()
            change.deletedIndexes = ["by_score"]
            try await stores.schemas.updateClass("Games", change)
            #expect(try await Self.indexSQL(database, "Games", "by_score") == nil)
            #expect(try await stores.schemas.storedClass("Games")?.indexes.isEmpty == true)
        }
    }
}
