import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// Class schemas in SQLite: a database made before schemas knows its classes, and indexes made
/// through `/schemas` are SQLite indexes on the JSON values of the class's objects.
@Suite struct SchemaStorageTests {
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
            let keys = "\(QueryField(path: "name").sortKey) ASC, \(QueryField(path: "score").sortKey) DESC"
            #expect(keys == "COALESCE(json_extract(data,'$.name.iso'),json_extract(data,'$.name')) ASC, COALESCE(json_extract(data,'$.score.iso'),json_extract(data,'$.score')) DESC")
            #expect(sql.contains("ON objects (\(keys)) WHERE class = 'Games'"), "\(sql)")
            #expect(try await stores.schemas.storedClass("Games")?.indexes == schema.indexes)

            var change = SchemaChange()
            change.deletedIndexes = ["by_score"]
            try await stores.schemas.updateClass("Games", change)
            #expect(try await Self.indexSQL(database, "Games", "by_score") == nil)
            #expect(try await stores.schemas.storedClass("Games")?.indexes.isEmpty == true)
        }
    }

    @Test func anIndexMadeBeforeQueriesComparedBySortKeyIsMadeAgainOnIt() async throws {
        let old = try await OldAppDatabase(madeUpTo: "classes") { db in
            try db.execute(
                sql: """
                    INSERT INTO classes (class, indexes) VALUES ('Games', '{"by_score":[["score",-1]]}');
                    CREATE INDEX "schema_5_Games_by_score" ON objects (json_extract(data, '$.score') DESC) WHERE class = 'Games';
                    """)
        }
        defer { old.remove() }
        let database = try SQLiteAppDatabase(path: old.path)
        let sql = try #require(try await Self.indexSQL(database, "Games", "by_score"))
        #expect(sql.hasSuffix("ON objects (\(QueryField(path: "score").sortKey) DESC) WHERE class = 'Games'"), "\(sql)")
        #expect(try await AppStores(database).schemas.storedClass("Games")?.indexes == ["by_score": [.init(field: "score", ascending: false)]])
    }

    @Test func aDatabaseFromBeforeSchemasListsTheClassesItsObjectsAndFieldsName() async throws {
        let old = try await OldAppDatabase(madeUpTo: "relations") { db in
            try db.execute(
                sql: """
                    INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES ('Posts', 'p1', 'x', 'x', NULL, '{"title":"hi"}');
                    INSERT INTO fields (class, field, type) VALUES ('Posts', 'title', 'String'), ('Posts', 'author', 'Pointer<_User>');
                    INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES ('Empty', 'e1', 'x', 'x', NULL, '{}');
                    """)
        }
        defer { old.remove() }
        let stores = AppStores(try SQLiteAppDatabase(path: old.path))
        let classes = try await stores.schemas.storedClasses(limit: 10)
        #expect(classes.map(\.className) == ["Empty", "Posts"])
        #expect(classes.last?.fieldTypes == ["title": .string, "author": .pointer(targetClass: "_User")])
        #expect(classes.allSatisfy { $0.permissions == nil }, "a class from before CLPs stays open")
    }
}
