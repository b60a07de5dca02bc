import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// The indexes made through `/schemas` serve the queries a Parse app sends on their fields:
/// SQLite's own plan for the store's statements (`EXPLAIN QUERY PLAN`, on the store's connection)
/// uses an index once it exists and not before, and every query answers the same rows either way.
@Suite struct SchemaIndexPlanTests {
    /// The objects of `Games` (and as many of `Other`, which no index of `Games` holds): numbers,
    /// strings, Dates and arrays, some fields missing.
    static func insertGames(_ objects: any ObjectStorage) async throws {
        func game(_ className: String, _ n: Int) -> ParseObject {
            var fields: [String: ParseValue] = ["score": .number(Double(n % 100)), "name": .string("p\(n % 300)")]
            fields["when"] = ParseValue.date(Date(timeIntervalSince1970: Double(n) * 3600))
            fields["tags"] = n % 3 == 0 ? ["red", .string("t\(n % 7)")] : .array([.string("t\(n % 7)")])
            fields["owner"] = .pointer(className: "_User", objectId: "u\(n % 50)")
            fields["members"] = .array([.pointer(className: "_User", objectId: "u\(n % 40)")])
            if n % 10 == 0 { fields["score"] = nil }
            return ParseObject(className: className, objectId: "\(className)\(n)", createdAt: Date(), updatedAt: Date(), fields: fields)
        }
        for className in ["Games", "Other"] {
            let all = (0..<2_000).map { game(className, $0) }
            try await objects.insert(all[0], outbox: nil, alongside: Array(all.dropFirst()))
        }
    }

    /// The queries, by what they test (equality, `$in`, a range, an order, a Date range, the
    /// leading field of a compound index, a pointer), and the index that serves each; nil where SQLite
    /// rightly reads the class in its own order (an element of arrays most objects hold, a
    /// negation), whose answers must stay the same all the same.
    static let queries: [String: (query: ParseQuery, index: String?)] = [
        "equality": (ParseQuery("Games", constraints: ["score": 7]), "by_score"),
        "in": (ParseQuery("Games", constraints: ["score": ["$in": [3, 7, "7"]]]), "by_score"),
        "range": (ParseQuery("Games", constraints: ["score": ["$gte": 97]], order: ["score"]), "by_score"),
        "order": (ParseQuery("Games", order: ["-score"], limit: 50), "by_score"),
        "date range": (
            ParseQuery("Games", constraints: ["when": ["$lt": ParseValue.date(Date(timeIntervalSince1970: 20 * 3600))]], order: ["when"]), "by_when"
        ),
        "compound leading field": (ParseQuery("Games", constraints: ["name": "p7"]), "by_name_score"),
        "compound order": (ParseQuery("Games", order: ["name", "-score"], limit: 20), "by_name_score"),
        "pointer equality": (ParseQuery("Games", constraints: ["owner": .pointer(className: "_User", objectId: "u7")]), "by_owner"),
        "pointers in": (
            ParseQuery("Games", constraints: ["owner": ["$in": [.pointer(className: "_User", objectId: "u7"), .pointer(className: "_User", objectId: "u9")]]]),
            "by_owner"
        ),
        "array element": (ParseQuery("Games", constraints: ["tags": "red"], order: ["-when"]), nil),
        "array elements": (ParseQuery("Games", constraints: ["tags": ["$in": ["t1", "t2"]], "score": ["$lt": 5]]), nil),
        "pointer in an array": (ParseQuery("Games", constraints: ["members": .pointer(className: "_User", objectId: "u3")]), nil),
        "not equal": (ParseQuery("Games", constraints: ["score": ["$ne": 7]], order: ["score"], limit: 1000), nil),
    ]

    static let indexes: [String: [StoredClassSchema.IndexKey]] = [
        "by_score": [.init(field: "score", ascending: true)],
        "by_when": [.init(field: "when", ascending: true)],
        "by_name_score": [.init(field: "name", ascending: true), .init(field: "score", ascending: false)],
        "by_tags": [.init(field: "tags", ascending: true)],
        "by_owner": [.init(field: "owner", ascending: true)],
        "by_members": [.init(field: "members", ascending: true)],
    ]

    /// SQLite's plan for `query`'s statement, one line per step.
    static func plan(_ database: SQLiteAppDatabase, _ query: ParseQuery) async throws -> String {
        let statement = try SQLiteQueryBuilder.select(StorageQuery(query: query, readerIdentities: ["*"]))
        return try await database.pool.read { db in
            // `EXPLAIN` runs on the schema the connection last read; a statement that reads the
            // database first brings it up to date, as every query of the store does.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments)
                .map { $0["detail"] as String }.joined(separator: "\n")
        }
    }

    /// Whether a step of `plan` reads the index `name` of `Games`.
    static func plan(_ plan: String, uses name: String) -> Bool {
        plan.split(separator: "\n").contains { step in
            step.split(separator: " ").contains { $0 == "schema_5_Games_\(name)" }
        }
    }

    /// The ids `query` answers, in order, for the master key and for an anonymous reader.
    static func answers(_ objects: any ObjectStorage, _ query: ParseQuery) async throws -> [[String]] {
        var answers: [[String]] = []
        for identities: [String]? in [nil, ["*"]] {
            answers.append(try await objects.find(StorageQuery(query: query, readerIdentities: identities)).compactMap(\.objectId))
        }
        return answers
    }

    @Test func anIndexMadeThroughSchemasServesEqualityInRangesAndOrderWithTheSameAnswers() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            try await Self.insertGames(stores.objects)
            var before: [String: [[String]]] = [:]
            for (name, (query, _)) in Self.queries {
                let plan = try await Self.plan(database, query)
                #expect(!plan.contains("schema_"), "\(name) before the index: \(plan)")
                before[name] = try await Self.answers(stores.objects, query)
                #expect(before[name]?.first?.isEmpty == false, "\(name) finds objects")
            }

            var change = SchemaChange()
            change.addedIndexes = Self.indexes
            try await stores.schemas.updateClass("Games", change)
            for (name, (query, index)) in Self.queries {
                let plan = try await Self.plan(database, query)
                if let index { #expect(Self.plan(plan, uses: index), "\(name): \(plan)") }
                #expect(try await Self.answers(stores.objects, query) == before[name], "\(name) answers the same rows")
            }
            let other = ParseQuery("Other", constraints: ["score": 7])
            #expect(!(try await Self.plan(database, other)).contains("schema_"), "another class's rows are in no index of Games")

            var drop = SchemaChange()
            drop.deletedIndexes = ["by_score"]
            try await stores.schemas.updateClass("Games", drop)
            let plan = try await Self.plan(database, Self.queries["equality"]!.query)
            #expect(!plan.contains("by_score"), "a deleted index serves nothing: \(plan)")
            #expect(try await SchemaStorageTests.indexSQL(database, "Games", "by_score") == nil)
        }
    }

    @Test func aClassNameWrittenIntoTheStatementStaysOneLiteral() async throws {
        #expect(SQLiteLiteral.text("a'b") == "'a''b'")
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            for className in ["Games", "Other"] {
                try await stores.objects.insert(
                    ParseObject(className: className, objectId: className, createdAt: Date(), updatedAt: Date(), fields: ["score": 7]), outbox: nil)
            }
            // Names are validated before they reach the store; past that, a quote still ends nothing.
            for name in ["Games' OR class = 'Other", "Games'--", "'"] {
                let query = StorageQuery(query: ParseQuery(name, constraints: ["score": 7]), readerIdentities: nil)
                #expect(try await stores.objects.find(query).isEmpty, "\(name)")
                #expect(try await stores.objects.count(query) == 0, "\(name)")
            }
        }
    }
}
