import Cloudlet
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletRuntime
@testable import CloudletSQLite

/// `$text` on PostgreSQL against SQLite: one corpus of strings in each, every search run by two
/// readers on both, the same objects required (in the same order, unless ranked by `$score`, which
/// each store computes its own way).
@Suite struct TextSearchDifferentialTests {
    private static let className = "Note"

    /// Parse Server's own full-text subjects, and more: stems, stop words, punctuation, digits,
    /// case and diacritics.
    private static let subjects = [
        "coffee", "Coffee Shopping", "Baking a cake", "baking", "Café Con Leche", "Сырники", "coffee and cream", "Cafe con Leche",
        "NEAR the AND gate", "the running dogs", "a runner", "Apple-pie, apple pie", "x1 costs 3.5", "naïve", "Naive ÉCLAIR",
        "coffee* shop", "secret:espresso", "cafe\u{301} noir", "", "and the",
    ]

    private static var corpus: [ParseObject] {
        subjects.enumerated().map { n, subject in
            var object = ParseObject(className: className, fields: ["subject": .string(subject), "n": .number(Double(n))])
            if n % 7 == 3 { object.fields["subject"] = nil }
            object.objectId = String(format: "t%02d", (n * 7) % subjects.count)
            object.createdAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(n % 5) * 60)
            object.updatedAt = object.createdAt
            if n % 4 == 1 { object.acl = ParseACL(json: ["u1": ["read": true]]) }
            return object
        }
    }

    /// Each a term and its options.
    private static let searches: [(String, [String: ParseValue])] = [
        ("coffee", [:]), ("CAFÉ", [:]), ("leche", ["$language": "spanish"]), ("bake", [:]), ("bake", ["$language": "spanish"]),
        ("cream сырники", [:]), ("tea", [:]), ("\"coffee shopping\"", [:]), ("\"shopping coffee\"", [:]), ("\"con leche\" \"café\"", [:]),
        ("coffee -cream", [:]), ("coffee -\"and cream\"", [:]), ("-coffee", [:]), ("leche -café", ["$diacriticSensitive": true]),
        ("Coffee", ["$caseSensitive": true]), ("café", ["$diacriticSensitive": true]), ("cafe", ["$diacriticSensitive": true]),
        ("and", [:]), ("the", [:]), ("NEAR", [:]), ("secret:espresso", [:]), ("coffee*", [:]), ("cafe\u{301}", [:]), ("apple pie", [:]),
        ("\"apple pie\"", [:]), ("3 5", [:]), ("x1", [:]), ("naive", [:]), ("NAIVE", ["$caseSensitive": true]), ("run", [:]),
        ("dogs", [:]), ("shop", [:]), ("\"pie apple\"", ["$language": "french"]), ("éclair", ["$caseSensitive": true]),
        ("coffee \"and cream\"", [:]), ("& | ! <->", [:]), ("cake", ["$language": "en"]),
    ]

    private static func text(_ term: String, _ options: [String: ParseValue]) -> [String: ParseValue] {
        var search = options
        search["$term"] = .string(term)
        return ["subject": ["$text": ["$search": .object(search)]]]
    }

    @Test func everySearchFindsTheSameObjectsOnBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for object in Self.corpus {
                    try await sqlite.insert(object, outbox: nil)
                    try await postgres.insert(object)
                }
                var matched = 0
                for (term, options) in Self.searches {
                    for reader in [nil, ["*"]] as [[String]?] {
                        let query = StorageQuery(query: ParseQuery(Self.className, constraints: Self.text(term, options), limit: 100), readerIdentities: reader)
                        let expected = try await sqlite.find(query)
                        let found = try await postgres.find(query)
                        #expect(found.map(\.objectId) == expected.map(\.objectId), "\(term) \(options) reader \(reader ?? ["master"])")
                        #expect(try await postgres.count(query) == expected.count, "count \(term) \(options)")
                        if reader == nil, !expected.isEmpty { matched += 1 }

                        var ranked = query
                        ranked.query.order = ["$score"]
                        ranked.query.keys = ["$score"]
                        let byScore = try await postgres.find(ranked)
                        #expect(Set(byScore.map(\.objectId)) == Set(try await sqlite.find(ranked).map(\.objectId)), "by $score: \(term)")
                        let scores = byScore.compactMap { $0.fields["score"]?.doubleValue }
                        #expect(scores.count == byScore.count && scores == scores.sorted(by: >), "each has its score, highest first: \(term)")
                    }
                }
                #expect(matched >= Self.searches.count / 2, "most searches find something: an empty answer proves little")
                let pipeline = try AggregatePipeline(json: [["$match": .object(Self.text("coffee", [:]))], ["$count": "n"]])
                #expect(try await postgres.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget()) == [["n": 4]], "an aggregate's $match searches too")
                #expect(try await sqlite.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget()) == [["n": 4]])
            }
        }
    }

    @Test func aMalformedOrMisplacedSearchGetsTheSameErrorFromBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for object in Self.corpus {
                    try await sqlite.insert(object, outbox: nil)
                    try await postgres.insert(object)
                }
                let search: ParseValue = ["$search": ["$term": "coffee"]]
                let refused: [(String, [String: ParseValue], [String])] = [
                    (Self.className, ["subject": ["$text": 1]], []),
                    (Self.className, ["subject": ["$text": ["$search": ["$term": 1]]]], []),
                    (Self.className, ["subject": ["$text": ["$search": ["$term": "a", "$caseSensitive": "yes"]]]], []),
                    (Self.className, ["subject": ["$text": ["$search": ["$term": .string(String(repeating: "a", count: 1_001))]]]], []),
                    (Self.className, ["n": ["$text": search]], []),
                    (Self.className, ["subject.x": ["$text": search]], []),
                    (Self.className, ["objectId": ["$text": search]], []),
                    (Self.className, ["subject": ["$text": search], "$or": [["subject": ["$text": search]]]], []),
                    ("_Session", ["subject": ["$text": search]], []),
                    (Self.className, ["n": 1], ["$score"]),
                ]
                for (className, constraints, order) in refused {
                    let query = StorageQuery(query: ParseQuery(className, constraints: constraints, order: order), readerIdentities: nil)
                    let expected = await #expect(throws: ParseError.self) { try await sqlite.find(query) }
                    let found = await #expect(throws: ParseError.self) { try await postgres.find(query) }
                    #expect(found?.code == expected?.code, "\(className) \(constraints) \(order)")
                }
            }
        }
    }
}
