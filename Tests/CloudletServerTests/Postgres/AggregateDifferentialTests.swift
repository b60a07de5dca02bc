import Cloudlet
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletRuntime
@testable import CloudletSQLite

/// The PostgreSQL store's aggregate pipelines against the SQLite store's: one corpus in each, every
/// pipeline of ``AggregateTests`` and more run on both, the same rows in the same order required.
@Suite struct AggregateDifferentialTests {
    private static let className = "TestObject"

    /// Parse Server's four aggregate test objects, and others with dates, pointers, missing and
    /// null fields.
    private static var corpus: [ParseObject] {
        let parse: [(Int, String, String, Int, [ParseValue])] = [
            (10, "foo", "A", 900, ["S", "M"]), (10, "foo", "A", 800, ["M", "L"]), (10, "bar", "B", 700, ["S"]), (20, "dpl", "B", 700, ["S"]),
        ]
        let mixed: [ParseValue] = [3, 0.25, .null, -1.5, 40, 3]
        let start = Date(timeIntervalSince1970: 1_735_560_000)  // 2024-12-30T12:00:00Z
        return (0..<16).map { n in
            var fields: [String: ParseValue] = [:]
            if n < parse.count {
                let (score, name, group, views, size) = parse[n]
                fields = ["score": .number(Double(score)), "name": .string(name), "sender": ["group": .string(group)], "views": .number(Double(views)), "size": .array(size)]
            } else {
                fields["score"] = .number(Double(n % 5) * 2.5)
                if n % 3 != 0 { fields["name"] = .string(["kiwi", "lime", "fig", "date"][n % 4]) }
                fields["views"] = .number(Double(100 + n * 37 % 11 * 10))
                if n % 4 != 1 { fields["sender"] = ["group": .string(["A", "B", "C"][n % 3])] }
            }
            fields["mixed"] = mixed[n % mixed.count]
            if n % 2 == 0 { fields["pointer"] = ["__type": "Pointer", "className": "Person", "objectId": .string("p\(n % 3)")] }
            if n % 5 != 4 { fields["at"] = .date(start.addingTimeInterval(Double(n * n) * 40_000 + Double(n) * 1.2345)) }
            var object = ParseObject(className: className, fields: fields)
            object.objectId = String(format: "o%02d", (n * 7) % 16)
            object.createdAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(n % 6) * 86_400 * 40)
            object.updatedAt = object.createdAt
            return object
        }
    }

    /// The people the objects' pointers point to.
    private static var people: [ParseObject] {
        (0..<3).map { n in
            var person = ParseObject(className: "Person", fields: ["age": .number(Double(15 + n * 5)), "name": .string(["foo", "kiwi", "nobody"][n])])
            person.objectId = "p\(n)"
            person.createdAt = Date(timeIntervalSince1970: 1_600_000_000)
            person.updatedAt = person.createdAt
            return person
        }
    }

    private static let date: ParseValue = ["__type": "Date", "iso": "2025-01-05T00:00:00.000Z"]

    /// The pipelines, as a request writes them (a `$sort` of one field each).
    private static let pipelines: [ParseValue] = [
        [],
        [["$match": ["score": ["$gt": 15]]]],
        [["$match": ["score": ["$gt": 5, "$lt": 15], "views": 900]]],
        [["$match": ["$or": [["score": ["$gt": 15, "$lt": 25]], ["views": ["$gt": 750, "$lt": 850]]]]]],
        [["$match": ["name": ["$in": ["bar", "dpl"]]]]],
        [["$match": ["name": ["$regex": "^f"]]]],
        [["$match": ["objectId": "o07"]]],
        [["$match": ["createdAt": ["$gte": ["__type": "Date", "iso": "2024-01-01T00:00:00.000Z"]]]]],
        [["$match": ["score": 10]], ["$match": ["views": 700]]],
        [["$match": ["at": ["$lt": date]]], ["$sort": ["at": -1]]],
        [["$match": ["pointer": ["$inQuery": ["className": "Person", "where": ["age": ["$gt": 20]]]]]], ["$sort": ["views": 1]]],
        [["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$match": ["objectId": ["$select": ["query": ["className": "Person", "where": [:]], "key": "name"]]]]],
        [["$group": ["_id": .null, "count": ["$sum": 1], "total": ["$sum": "$score"], "average": ["$avg": "$score"], "least": ["$min": "$score"],
                     "most": ["$max": "$views"], "first": ["$min": "$name"], "last": ["$max": "$name"]]]],
        [["$group": ["_id": ""]]],
        [["$group": ["_id": "$name", "n": ["$sum": 1], "views": ["$sum": "$views"]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": "$score"]], ["$sort": ["objectId": -1]]],
        [["$group": ["_id": "$sender.group", "avg": ["$avg": "$views"]]], ["$sort": ["avg": 1]]],
        [["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$match": ["n": ["$gt": 1]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": "$name", "n": ["$sum": 2]]], ["$match": ["objectId": "bar"]]],
        [["$group": ["_id": "$pointer", "n": ["$sum": 1]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": "$mixed", "n": ["$sum": 1], "min": ["$min": "$mixed"], "max": ["$max": "$mixed"], "sum": ["$sum": "$mixed"]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": .null, "min": ["$min": "$mixed"], "max": ["$max": "$mixed"], "sum": ["$sum": "$mixed"], "avg": ["$avg": "$at"], "names": ["$sum": "$name"],
                     "first": ["$min": "$createdAt"], "last": ["$max": "$objectId"]]]],
        [["$group": ["_id": "$at", "n": ["$sum": 1]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": ["name": "$name", "score": "$score"], "n": ["$sum": 1]]], ["$sort": ["objectId": 1]]],
        [["$group": ["_id": ["name": "$name", "score": "$score"], "n": ["$sum": 1]]], ["$sort": ["name": -1]]],
        [["$group": ["_id": ["year": ["$year": "$at"], "month": ["$month": "$at"], "day": ["$dayOfMonth": "$at"], "weekday": ["$dayOfWeek": "$at"],
                             "isoWeekday": ["$isoDayOfWeek": "$at"], "week": ["$week": "$at"], "isoYear": ["$isoWeekYear": "$at"],
                             "dayOfYear": ["$dayOfYear": "$at"]], "n": ["$sum": 1]]], ["$sort": ["objectId": 1]]],
        [["$match": ["at": ["$gt": ["__type": "Date", "iso": "2024-12-30T12:00:00.000Z"]]]],
         ["$group": ["_id": ["hour": ["$hour": "$at"], "minute": ["$minute": "$at"], "second": ["$second": "$at"], "ms": ["$millisecond": "$at"]]]],
         ["$sort": ["objectId": 1]]],
        [["$group": ["_id": ["year": ["$year": "$createdAt"]], "n": ["$sum": 1]]], ["$sort": ["objectId": -1]]],
        [["$match": ["score": 20]], ["$project": ["name": 1, "group": "$sender.group"]]],
        [["$match": ["score": 20]], ["$project": ["_id": 0, "views": 1, "missing": 1]]],
        [["$project": ["score": 1, "when": "$at"]], ["$sort": ["when": 1]]],
        ["$project": ["score": 1], "$group": ["_id": "$score", "score": ["$sum": "$score"]], "$sort": ["objectId": 1]],
        [["$project": ["createdAt": 1]], ["$match": ["createdAt": ["$exists": true]]]],
        [["$project": ["name": 1]], ["$match": ["name": ["$regex": "i"]]], ["$sort": ["name": 1]]],
        [["$sort": ["views": -1]]],
        [["$sort": ["views": 1]], ["$skip": 1], ["$limit": 2]],
        [["$sort": ["views": -1]], ["$limit": 3], ["$skip": 2]],
        [["$sort": ["views": -1]], ["$limit": 2], ["$sort": ["views": 1]]],
        [["$sort": ["views": -1]], ["$match": ["score": 10]]],
        [["$sort": ["mixed": 1]]],
        [["$sort": ["name": -1]]],
        [["$sort": ["createdAt": -1]], ["$limit": 5]],
        [["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$sort": ["n": -1]], ["$limit": 1]],
        [["$match": ["score": 10]], ["$count": "tens"]],
        [["$match": ["score": 99]], ["$count": "none"]],
        [["$count": "all"]],
        [["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$count": "groups"]],
        [["$match": ["score": 99]], ["$group": ["_id": .null, "n": ["$sum": 1]]]],
    ]

    @Test func everyPipelineAnswersTheSameRowsInTheSameOrderOnBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for object in Self.corpus + Self.people {
                    try await sqlite.insert(object, outbox: nil)
                    try await postgres.insert(object)
                }
                var pipelines = try Self.pipelines.map { try AggregatePipeline(json: $0) }
                // Several fields, in the order given.
                pipelines.append(AggregatePipeline(stages: [.sort([.init(field: "score", ascending: true), .init(field: "views", ascending: false)])]))
                pipelines.append(
                    AggregatePipeline(stages: [
                        .sort([.init(field: "views", ascending: true), .init(field: "score", ascending: false)]), .limit(3),
                        .sort([.init(field: "score", ascending: false), .init(field: "views", ascending: false)]),
                    ]))
                var answered = 0
                for pipeline in pipelines {
                    let expected = try await sqlite.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget())
                    let found = try await postgres.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget())
                    #expect(found == expected, "\(pipeline.stages)")
                    if !expected.isEmpty { answered += 1 }
                }
                #expect(answered == pipelines.count - 2, "only the two pipelines matching no score answer nothing: an empty answer proves little")
                #expect(try await postgres.aggregate("NoSuchClass", pipeline: AggregatePipeline(stages: [.count("n")]), budget: ReadBudget()).isEmpty)
            }
        }
    }

    @Test func bothStoresRefuseTheSamePipelines() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                var huge = ParseObject(className: Self.className, fields: ["n": 1e308])
                for id in ["h1", "h2"] {
                    huge.objectId = id
                    huge.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
                    huge.updatedAt = huge.createdAt
                    try await sqlite.insert(huge, outbox: nil)
                    try await postgres.insert(huge)
                }
                let refused: [ParseValue] = [
                    [["$group": ["_id": .null, "total": ["$sum": "$n"]]]],
                    [["$match": ["n": ["$foo": 1]]]],
                    [["$group": ["_id": "$n"]], ["$match": ["$text": ["$search": ["$term": "a"]]]]],
                ]
                for json in refused {
                    let pipeline = try AggregatePipeline(json: json)
                    let expected = await #expect(throws: ParseError.self) { try await sqlite.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget()) }
                    let found = await #expect(throws: ParseError.self) { try await postgres.aggregate(Self.className, pipeline: pipeline, budget: ReadBudget()) }
                    #expect(found?.code == expected?.code, "\(json)")
                }
                let small = ReadBudget(maximumBytes: 64)
                await #expect(throws: ParseError.self, "each row is charged to the budget") {
                    try await postgres.aggregate(Self.className, pipeline: AggregatePipeline(stages: []), budget: small)
                }
            }
        }
    }

    @Test func morePipelineRowsThanOneAnswerHoldsAnswer154OnBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                let many = (0...StorageQuery.maximumLimit).map { n in
                    var object = ParseObject(className: "Many", fields: ["n": .number(Double(n))])
                    object.objectId = "m\(n)"
                    object.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
                    object.updatedAt = object.createdAt
                    return object
                }
                try await sqlite.insert(many[0], outbox: nil, alongside: Array(many.dropFirst()))
                try await postgres.insert(many[0], alongside: Array(many.dropFirst()))
                let byValue = AggregatePipeline(stages: [.group(AggregateGroup(key: .field("n"), accumulators: []))])
                for (name, aggregate) in [("sqlite", sqlite.aggregate), ("postgres", postgres.aggregate)] as [(String, (String, AggregatePipeline, ReadBudget) async throws -> [[String: ParseValue]])] {
                    let error = await #expect(throws: ParseError.self, "\(name)") { try await aggregate("Many", byValue, ReadBudget()) }
                    #expect(error?.code == 154, "\(name)")
                    #expect(try await aggregate("Many", AggregatePipeline(stages: [.group(AggregateGroup(key: .field("n"), accumulators: [])), .limit(1000)]), ReadBudget()).count == 1000)
                }
            }
        }
    }
}
