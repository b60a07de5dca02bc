import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO
import Testing

@testable import CloudletPostgres

/// What the PostgreSQL schema store does beyond what both stores share: an index is a PostgreSQL
/// index partial to its class that the order on its field reads, named within PostgreSQL's 63
/// bytes; a field declared on one node while another writes it gets one type; a field deleted
/// through one node is forgotten by every node's cached types.
@Suite struct PostgresSchemaStoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The definition of the index `name` in `schema`, if there is one.
    static func indexDefinition(_ database: CloudletPostgres.PostgresDatabase, _ schema: PostgresAppSchema, _ name: String) async throws -> String? {
        var binds = PostgresBindings()
        binds.append(schema.name)
        binds.append(name)
        let rows = try await database.client.query(
            PostgresQuery(unsafeSQL: "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2", binds: binds), logger: database.logger)
        for try await definition in rows.decode(String.self) { return definition }
        return nil
    }

    /// PostgreSQL's plan for `query` as the object store runs it, with scans of the whole table
    /// made as dear as PostgreSQL allows (the tables here are small).
    static func plan(_ database: CloudletPostgres.PostgresDatabase, _ schema: PostgresAppSchema, _ query: ParseQuery) async throws -> String {
        var compiler = PostgresQueryCompiler(schema: schema)
        let sql = try compiler.select(StorageQuery(query: query, readerIdentities: nil))
        return try await database.transaction { connection in
            try await connection.query("SET LOCAL enable_seqscan = off", logger: database.logger)
            var lines: [String] = []
            for try await line in try await connection.run("EXPLAIN " + sql, compiler.binds, logger: database.logger).decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    @Test func anIndexIsPartialToItsClassAndServesTheOrderOnItsField() async throws {
        try await TemporaryPostgres.with { database, schema in
            let schemas = try await PostgresSchemaStore(database, schema: schema)
            let objects = try await PostgresObjectStore(database, schema: schema)
            for className in ["Games", "Other"] {
                let all = (0..<200).map { n in
                    ParseObject(className: className, objectId: "\(className)\(n)", createdAt: Self.now, updatedAt: Self.now, fields: ["score": .number(Double(n % 37))])
                }
                try await objects.insert(all[0], alongside: Array(all.dropFirst()))
            }
            let order = ParseQuery("Games", order: ["-score"], limit: 10)
            let before = try await objects.find(StorageQuery(query: order, readerIdentities: nil))
            #expect(try await !Self.plan(database, schema, order).contains("schema_5_Games_by_score"))

            var change = SchemaChange()
            change.addedIndexes = ["by_score": [.init(field: "score", ascending: false)]]
            try await schemas.updateClass("Games", change)
            let definition = try #require(try await Self.indexDefinition(database, schema, "schema_5_Games_by_score"))
            #expect(definition.hasSuffix("WHERE (class = 'Games'::text)"), "\(definition)")
            let plan = try await Self.plan(database, schema, order)
            #expect(plan.contains("schema_5_Games_by_score"), "\(plan)")
            #expect(try await objects.find(StorageQuery(query: order, readerIdentities: nil)) == before, "the same answer either way")

            change = SchemaChange()
            change.deletedIndexes = ["by_score"]
            try await schemas.updateClass("Games", change)
            #expect(try await Self.indexDefinition(database, schema, "schema_5_Games_by_score") == nil)
        }
    }

    @Test func indexesOfLongNamesStayWithinPostgreSQLsNamesAndApart() async throws {
        try await TemporaryPostgres.with { database, schema in
            let schemas = try await PostgresSchemaStore(database, schema: schema)
            let className = String(repeating: "C", count: 60)
            let names = ["by_" + String(repeating: "x", count: 60) + "_a", "by_" + String(repeating: "x", count: 60) + "_b"]
            try await schemas.createClass(
                StoredClassSchema(className: className, fieldTypes: ["x": .number], indexes: Dictionary(uniqueKeysWithValues: names.map { ($0, [.init(field: "x", ascending: true)]) })))
            let made = names.map { PostgresSchemaIndexes.indexName($0, className) }
            #expect(Set(made).count == 2 && made.allSatisfy { $0.utf8.count <= 63 })
            for name in made { #expect(try await Self.indexDefinition(database, schema, name) != nil) }
            try await schemas.deleteClass(className)
            for name in made { #expect(try await Self.indexDefinition(database, schema, name) == nil) }
        }
    }

    @Test func aFieldDeclaredOnOneNodeAndWrittenOnAnotherAtOnceHasOneType() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let schemas = try await PostgresSchemaStore(database, schema: schema)
                let objects = try await PostgresObjectStore(other, schema: schema)
                try await schemas.createClass(StoredClassSchema(className: "Race"))
                for round in 0..<20 {
                    let field = "f\(round)"
                    async let declared: Int? = Self.code {
                        var change = SchemaChange()
                        change.addedFields = [field: .number]
                        try await schemas.updateClass("Race", change)
                    }
                    async let written: Int? = Self.code {
                        try await objects.insert(
                            ParseObject(className: "Race", objectId: field, createdAt: Self.now, updatedAt: Self.now, fields: [field: "one"]))
                    }
                    let codes = await [declared, written]
                    #expect(codes.filter { $0 == nil }.count == 1, "round \(round): one of them wins")
                    let type = try await schemas.storedClass("Race")?.fieldTypes[field]
                    #expect(type == (codes[0] == nil ? .number : .string), "round \(round): the winner's type is recorded")
                    #expect(codes.contains(255) || codes.contains(111), "round \(round): \(codes)")
                }
            }
        }
    }

    /// The Parse error code `body` throws, nil if it throws none.
    static func code(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? ParseError)?.code ?? -1
        }
    }

    @Test func aFieldDeletedThroughOneNodeIsForgottenByTheOthersCachedTypes() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let objects = try await PostgresObjectStore(database, schema: schema)
                let schemas = try await PostgresSchemaStore(other, schema: schema)
                func post(_ id: String, _ likes: ParseValue) -> ParseObject {
                    ParseObject(className: "Posts", objectId: id, createdAt: Self.now, updatedAt: Self.now, fields: ["likes": likes])
                }
                try await objects.insert(post("p0", 3))
                try await objects.insert(post("p1", 4))
                var change = SchemaChange()
                change.deletedFields = ["likes": .number]
                try await schemas.updateClass("Posts", change)
                // The other node's notification arrives within a bounded wait; until then its cache may answer 111.
                var attempt = 0
                while true {
                    attempt += 1
                    do {
                        try await objects.insert(post("p\(attempt + 1)", "many"))
                        break
                    } catch let error as ParseError where error.code == 111 && attempt < 100 {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                #expect(try await schemas.storedClass("Posts")?.fieldTypes == ["likes": .string])
            }
        }
    }
}
