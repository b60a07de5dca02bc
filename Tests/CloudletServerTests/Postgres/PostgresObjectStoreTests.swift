import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO
import Testing

@testable import CloudletPostgres

/// What the PostgreSQL object store does beyond what both stores share: two nodes writing a new
/// field at once with different types (the class's row locked, the loser told the type), and the
/// look-ups of users by `authData` id and of installations by key reaching their indexes.
@Suite struct PostgresObjectStoreTests {
    @Test func twoNodesWritingANewFieldAtOnceWithDifferentTypesCannotBothWin() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let first = try await PostgresObjectStore(database, schema: schema)
                let second = try await PostgresObjectStore(other, schema: schema)
                for round in 0..<20 {
                    let field = "f\(round)"
                    let results = await withTaskGroup(of: Int?.self) { group in
                        for (store, value) in [(first, ParseValue.number(1)), (second, ParseValue.string("one"))] {
                            group.addTask {
                                var object = ParseObject(className: "Race", fields: [field: value])
                                object.objectId = "\(field)-\(value.stringValue ?? "n")"
                                object.createdAt = Date()
                                object.updatedAt = object.createdAt
                                do {
                                    try await store.insert(object)
                                    return nil
                                } catch {
                                    return (error as? ParseError)?.code ?? -1
                                }
                            }
                        }
                        return await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(results.filter { $0 == nil }.count == 1, "round \(round): exactly one type wins")
                    #expect(results.compactMap { $0 } == [111], "round \(round): the other write is told the field's type (111)")
                }
            }
        }
    }

    @Test func eachAppsObjectsAreInItsOwnSchemaAndItsQueriesReachNoOthers() async throws {
        try await TemporaryPostgres.with { database, shop in
            let other = PostgresAppSchema(appId: shop.name + "-other")
            let shopObjects = try await PostgresObjectStore(database, schema: shop)
            let otherObjects = try await PostgresObjectStore(database, schema: other)
            for (store, owner) in [(shopObjects, "shop"), (otherObjects, "other")] {
                var object = ParseObject(className: "Note", fields: ["owner": .string(owner), "n": 1])
                object.objectId = "same-id"
                object.createdAt = Date()
                object.updatedAt = object.createdAt
                try await store.insert(object)
            }
            let everything = StorageQuery(query: ParseQuery("Note", constraints: ["$or": [["n": 1], ["owner": ["$exists": true]]]]), readerIdentities: nil)
            #expect(try await otherObjects.find(everything).map { $0.fields["owner"] } == ["other"])
            #expect(try await shopObjects.count(everything) == 1)
            _ = try await otherObjects.delete("Note", id: "same-id", check: { _ in }, outbox: nil)
            #expect(try await shopObjects.fetch("Note", id: "same-id")?.fields["owner"] == "shop", "the other app's delete left this app's object")
            try await database.execute("DROP SCHEMA \(other.quoted) CASCADE")
        }
    }

    @Test func aStringHoldingNulIsRefusedWith111AndNothingIsStored() async throws {
        try await TemporaryPostgres.with { database, schema in
            let store = try await PostgresObjectStore(database, schema: schema)
            var object = ParseObject(className: "Note", fields: ["text": "a\u{0}b", "nested": ["deep": ["x\u{0}"]]])
            object.objectId = "n1"
            object.createdAt = Date()
            object.updatedAt = object.createdAt
            let error = await #expect(throws: ParseError.self) { try await store.insert(object) }
            #expect(error?.code == 111)
            #expect(try await store.fetch("Note", id: "n1") == nil)
        }
    }

    @Test func theLookUpsOfUsersAndInstallationsUseTheirIndexes() async throws {
        try await TemporaryPostgres.with { database, schema in
            let accounts = try await PostgresAccountStore(database, schema: schema)
            let lookUps =
                AuthProvider.allCases.map { (accounts.linkedUsersQuery($0), "users_unique_\($0.rawValue)_id") } + [
                    (accounts.objects.installationsQuery(.installationId), "installations_unique_installation_id"),
                    (accounts.objects.installationsQuery(.deviceToken), "installations_by_device_token"),
                ]
            for (query, index) in lookUps {
                let plan = try await database.transaction { connection in
                    try await connection.query("SET LOCAL enable_seqscan = off", logger: database.logger)
                    var binds = PostgresBindings()
                    binds.append("x")
                    if query.contains("$2") { binds.append(5) }
                    var lines: [String] = []
                    for try await line in try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query, binds: binds), logger: database.logger)
                        .decode(String.self)
                    {
                        lines.append(line)
                    }
                    return lines.joined(separator: "\n")
                }
                #expect(plan.contains(index), "\(plan)")
            }
        }
    }
}
