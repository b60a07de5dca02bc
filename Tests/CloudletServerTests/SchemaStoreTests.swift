import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime

/// Class schemas on each store: classes, their declared fields, CLPs and indexes; the field types
/// a write records and those `/schemas` declares are one truth; a deleted field leaves every object
/// (and a relation field its join rows); a class with objects is not dropped.
@Suite struct SchemaStoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func object(_ className: String, _ id: String, _ fields: [String: ParseValue]) -> ParseObject {
        ParseObject(className: className, objectId: id, createdAt: now, updatedAt: now, fields: fields)
    }

    static let permissions = try! ClassLevelPermissions(json: ["find": ["*": true], "create": ["role:admin": true]], fields: [:])

    @Test(arguments: TestStore.allCases)
    func classesKeepTheirFieldsPermissionsAndIndexes(_ store: TestStore) async throws {
        try await store.with({ $0.schemas }) { app, _ in
            let games = StoredClassSchema(
                className: "Games", fieldTypes: ["score": .number, "owner": .pointer(targetClass: "_User")], permissions: Self.permissions,
                indexes: ["by_score": [.init(field: "score", ascending: false), .init(field: "owner", ascending: true)]])
            try await app.schemas.createClass(games)
            try await app.schemas.createClass(StoredClassSchema(className: "Alpha"))
            let stored = try #require(try await app.schemas.storedClass("Games"))
            #expect(stored.fieldTypes == games.fieldTypes)
            #expect(stored.indexes == games.indexes)
            #expect(stored.permissions?.json == games.permissions?.json)
            #expect(try await app.schemas.storedClasses(limit: 10).map(\.className) == ["Alpha", "Games"])
            #expect(try await app.schemas.storedClasses(limit: 1).map(\.className) == ["Alpha"])
            await #expect(throws: ParseError(code: 103, message: "Class Games already exists.")) { try await app.schemas.createClass(games) }

            var change = SchemaChange()
            change.addedFields = ["name": .string]
            change.addedIndexes = ["by_name": [.init(field: "name", ascending: true)]]
            change.deletedIndexes = ["by_score"]
            change.permissions = .open
            try await app.schemas.updateClass("Games", change)
            let changed = try #require(try await app.schemas.storedClass("Games"))
            #expect(changed.fieldTypes == ["score": .number, "owner": .pointer(targetClass: "_User"), "name": .string])
            #expect(changed.indexes == ["by_name": [.init(field: "name", ascending: true)]])
            #expect(changed.permissions == .open)
            await #expect(throws: ParseError(code: 103, message: "Class Nope does not exist.")) { try await app.schemas.updateClass("Nope", SchemaChange()) }
            try await app.schemas.updateClass("_Installation", SchemaChange())
            #expect(try await app.schemas.storedClass("_Installation") != nil, "Parse's own classes exist before their first object")
        }
    }

    @Test(arguments: TestStore.allCases)
    func typesRecordedByWritesAndDeclaredBySchemasAreOneTruth(_ store: TestStore) async throws {
        try await store.with({ $0.schemas }) { app, _ in
            try await app.objects.insert(Self.object("Posts", "p1", ["title": "hi", "likes": 3]))
            #expect(try await app.schemas.storedClass("Posts")?.fieldTypes == ["title": .string, "likes": .number])
            await #expect(throws: ParseError.self) { try await app.schemas.createClass(StoredClassSchema(className: "Posts")) }

            try await app.schemas.createClass(StoredClassSchema(className: "Declared", fieldTypes: ["level": .string]))
            await #expect(throws: ParseError.incorrectType("schema mismatch for Declared.level; expected String but got Number")) {
                try await app.objects.insert(Self.object("Declared", "d1", ["level": 3]))
            }

            var change = SchemaChange()
            change.deletedFields = ["likes": .number]
            try await app.schemas.updateClass("Posts", change)
            #expect(try await app.objects.fetch("Posts", "p1")?.fields == ["title": "hi"], "a deleted field leaves every object")
            try await app.objects.insert(Self.object("Posts", "p2", ["likes": "many"]))
            #expect(try await app.schemas.storedClass("Posts")?.fieldTypes["likes"] == .string, "the field may come back with another type")
        }
    }

    @Test(arguments: TestStore.allCases)
    func aDeletedRelationFieldLeavesItsJoinRows(_ store: TestStore) async throws {
        try await store.with({ $0.schemas }) { app, _ in
            try await app.objects.insert(Self.object("Tags", "t1", [:]))
            try await app.objects.insert(
                Self.object("Posts", "p1", ["tags": .relation(className: "Tags")]), relations: ["tags": RelationChange(targetClass: "Tags", adding: ["t1"])])
            let related = ParseQuery("Tags", constraints: ["$relatedTo": ["object": .pointer(className: "Posts", objectId: "p1"), "key": "tags"]])
            #expect(try await app.objects.find(related).map(\.objectId) == ["t1"])
            var change = SchemaChange()
            change.deletedFields = ["tags": .relation(targetClass: "Tags")]
            try await app.schemas.updateClass("Posts", change)
            #expect(try await app.objects.find(related).isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases)
    func aClassWithObjectsIsNotDroppedUntilPurged(_ store: TestStore) async throws {
        try await store.with({ $0.schemas }) { app, _ in
            try await app.schemas.createClass(StoredClassSchema(className: "Games", indexes: ["by_score": [.init(field: "score", ascending: true)]]))
            try await app.objects.insert(Self.object("Games", "g1", ["score": 1]))
            try await app.objects.insert(Self.object("Games", "g2", ["score": 2]))
            try await app.objects.insert(Self.object("Other", "o1", [:]))
            await #expect(throws: ParseError(code: 255, message: "Class Games is not empty, contains 2 objects, cannot drop schema.")) {
                try await app.schemas.deleteClass("Games")
            }
            try await app.schemas.purge("Games")
            #expect(try await app.objects.find(ParseQuery("Games")).isEmpty)
            #expect(try await app.schemas.storedClass("Games")?.fieldTypes == ["score": .number], "purging keeps the schema")
            try await app.schemas.deleteClass("Games")
            #expect(try await app.schemas.storedClass("Games") == nil)
            #expect(try await app.objects.find(ParseQuery("Other")).count == 1)
            try await app.schemas.createClass(StoredClassSchema(className: "Games", indexes: ["by_score": [.init(field: "score", ascending: true)]]))
            #expect(try await app.schemas.storedClass("Games")?.indexes.count == 1, "its indexes went with it")
        }
    }
}
