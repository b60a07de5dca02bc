import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// The join rows of relations in the app's database: written in the save's transaction, and gone
/// once either side of them is deleted.
@Suite struct RelationJoinRowTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func object(_ className: String, _ id: String, _ fields: [String: ParseValue] = [:]) -> ParseObject {
        ParseObject(className: className, objectId: id, createdAt: now, updatedAt: now, acl: nil, fields: fields)
    }

    private func joinRows(_ database: SQLiteAppDatabase) async throws -> [String] {
        try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT owning_class, owning_id, field, related_class, related_id FROM relations ORDER BY 1, 2, 3, 5")
                .map { row in (0..<5).map { row[$0] as String }.joined(separator: " ") }
        }
    }

    @Test func joinRowsGoWithTheOwnerAndWithTheRelatedObject() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            for id in ["t1", "t2"] { try await objects.insert(object("Tags", id), outbox: nil) }
            let change = RelationChange(targetClass: "Tags", adding: ["t1", "t2"])
            try await objects.insert(
                object("Posts", "p1", ["tags": .relation(className: "Tags")]), relations: ["tags": change], outbox: nil, alongside: [])
            try await objects.insert(
                object("Posts", "p2", ["tags": .relation(className: "Tags")]), relations: ["tags": change], outbox: nil, alongside: [])
            #expect(try await joinRows(database).count == 4)

            try await objects.delete("Tags", id: "t1", check: { _ in }, outbox: nil)
            #expect(try await joinRows(database) == ["Posts p1 tags Tags t2", "Posts p2 tags Tags t2"])
            try await objects.delete("Posts", id: "p1", check: { _ in }, outbox: nil)
            #expect(try await joinRows(database) == ["Posts p2 tags Tags t2"])
        }
    }

    @Test func aRefusedSaveWritesNoJoinRows() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            try await objects.insert(object("Posts", "p1", ["tags": "text"]), outbox: nil)
            let changes = ObjectChanges(fields: ["tags": .operation(.relation(RelationChange(targetClass: "Tags", adding: ["t1"])))])
            await #expect(throws: ParseError.self) {
                try await objects.update("Posts", id: "p1", changes: changes, updatedAt: now, check: { _ in }, outbox: nil)
            }
            let other = object("Posts", "p2", ["tags": .relation(className: "Tags")])
            await #expect(throws: ParseError.self) {
                try await objects.insert(other, relations: ["tags": RelationChange(targetClass: "Tags", adding: ["t1"])], outbox: nil, alongside: [])
            }
            #expect(try await joinRows(database).isEmpty)
        }
    }

    @Test func relatedToLooksTheRelatedObjectsUpByTheirKey() async throws {
        try await TemporaryStorage.with { database, _ in
            let relatedTo: ParseValue = ["$relatedTo": ["object": .pointer(className: "Posts", objectId: "p1"), "key": "tags"]]
            let query = ParseQuery("Tags", constraints: relatedTo.objectValue!)
            let statement = try SQLiteQueryBuilder.select(StorageQuery(query: query, readerIdentities: ["*"]))
            let plan = try await database.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
            }
            // Not a walk of every tag in sort order, each tested against the relation.
            #expect(plan.contains("SEARCH objects USING PRIMARY KEY (class=? AND id=?)"), "\(plan)")
            #expect(plan.contains { $0.contains("relations USING PRIMARY KEY") }, "\(plan)")
        }
    }
}
