import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// `GET /aggregate/:className` under hostile input: the master key only, every unsupported or
/// malformed stage a 102 (never a 5xx), names validated, sizes bounded, one app's data only.
@Suite("Aggregate: bounds and refusals")
struct AggregateBoundsTests {
    @Test("only the master key may aggregate: a client key or a user's session answers 119", arguments: TestStore.allCases)
    func masterKeyOnly(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await AggregateTests.seed(client)
            let signup = try await client.post("/users", ["username": "ann", "password": "pw"])
            let session = try #require(signup["sessionToken"]?.stringValue)
            for query: [String: ParseValue] in [["distinct": "score"], AggregateTests.pipeline(["$match": [:]])] {
                Support.expectError(try await client.get("/aggregate/TestObject", query: query), status: 403, code: 119)
                Support.expectError(try await client.get("/aggregate/TestObject", query: query, sessionToken: session), status: 403, code: 119)
            }
        }
    }

    @Test("unknown stages, accumulators and malformed stages answer 102 and change nothing", arguments: TestStore.allCases)
    func unsupported(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await AggregateTests.seed(client)
            let refused: [[String: ParseValue]] = [
                AggregateTests.pipeline(["$lookup": ["from": "_User", "localField": "a", "foreignField": "b", "as": "c"]]),
                AggregateTests.pipeline(["$out": "Other"]), AggregateTests.pipeline(["$merge": ["into": "Other"]]),
                AggregateTests.pipeline(["$unwind": "$size"]), AggregateTests.pipeline(["group": ["_id": .null]]),
                AggregateTests.pipeline(["$match": [:], "$limit": 1]), AggregateTests.pipeline("$match"),
                AggregateTests.pipeline(["$group": [:]]), AggregateTests.pipeline(["$group": ["objectId": "$name"]]),
                AggregateTests.pipeline(["$group": ["_id": "$name", "all": ["$push": "$score"]]]),
                AggregateTests.pipeline(["$group": ["_id": "$name", "n": ["$sum": ["$multiply": ["$a", "$b"]]]]]),
                AggregateTests.pipeline(["$group": ["_id": ["a": "name"]]]), AggregateTests.pipeline(["$group": ["_id": "name"]]),
                AggregateTests.pipeline(["$group": ["_id": ["a": ["$dayOfMonth": "createdAt"]]]]),
                AggregateTests.pipeline(["$group": ["_id": ["a": ["$dateToString": "$createdAt"]]]]),
                AggregateTests.pipeline(["$group": ["_id": .object(Dictionary(uniqueKeysWithValues: (0...16).map { ("k\($0)", "$name") }))]]),
                AggregateTests.pipeline(["$project": ["total": ["$multiply": ["$a", "$b"]]]]), AggregateTests.pipeline(["$project": ["name": 0]]),
                AggregateTests.pipeline(["$sort": ["a": 2]]), AggregateTests.pipeline(["$sort": ["a": 1, "b": "-1"]]),
                AggregateTests.pipeline(["$sort": [:]]), AggregateTests.pipeline(["$sort": ["a": 1, "b": 0]]),
                AggregateTests.pipeline(["$sort": .object(Dictionary(uniqueKeysWithValues: (0...AggregatePipeline.maximumSortKeys).map { ("k\($0)", 1) }))]),
                AggregateTests.pipeline(["$limit": -1]), AggregateTests.pipeline(["$limit": 0]), AggregateTests.pipeline(["$skip": -5]),
                AggregateTests.pipeline(["$count": 5]), AggregateTests.pipeline(["$match": ["score": ["$where": "sleep(1)"]]]),
                ["pipeline": 5], ["$geoNear": ["near": [0, 0]]],
            ]
            for query in refused {
                Support.expectError(try await client.get("/aggregate/TestObject", query: query, master: true), status: 400, code: 102)
            }
            #expect(try await Support.masterCount(client, "TestObject") == 4)
            #expect(try await Support.masterCount(client, "Other") == 0, "$out and $merge wrote nothing")
        }
    }

    @Test("a $sort of several fields inside a batch, where their order is lost, answers 102; at the bound it runs", arguments: TestStore.allCases)
    func sortOrderUnknown(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await AggregateTests.seed(client)
            let operation: ParseValue = ["method": "GET", "path": "/aggregate/TestObject", "body": ["pipeline": [["$sort": ["score": 1, "views": 1]]]]]
            let batch = try await client.post("/batch", ["requests": [operation]], master: true)
            #expect(batch.body.arrayValue?.first?["error"]?["code"] == 102, "\(batch.body)")
            let single: ParseValue = ["method": "GET", "path": "/aggregate/TestObject", "body": ["pipeline": [["$sort": ["views": -1]]]]]
            let allowed = try await client.post("/batch", ["requests": [single]], master: true)
            #expect(allowed.body.arrayValue?.first?["success"]?["results"]?.arrayValue?.first?["views"] == 900, "\(allowed.body)")
            let fields = (0..<AggregatePipeline.maximumSortKeys).map { "\"k\($0)\": \($0 % 2 == 0 ? 1 : -1)" }.joined(separator: ", ")
            #expect(try await AggregateTests.rows(client, pipeline: "[{\"$sort\": {\(fields)}}]").count == 4)
        }
    }

    @Test("field names are validated: SQL or JSON-path text in a name answers 105 (102 where the stage itself is malformed) and changes nothing", arguments: TestStore.allCases)
    func injection(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await AggregateTests.seed(client)
            let hostile = ["score') FROM objects; DROP TABLE objects; --", "a\"]", "$.score", "score[0]", "a..b", "", "sco re", "a.$x"]
            for name in hostile {
                let refused: [[String: ParseValue]] = [
                    ["distinct": .string(name)], AggregateTests.pipeline(["$group": ["_id": .string("$" + name)]]),
                    AggregateTests.pipeline(["$group": ["_id": .null, "n": ["$sum": .string("$" + name)]]]),
                    AggregateTests.pipeline(["$group": ["_id": .null, .init(stringLiteral: name): ["$sum": 1]]]),
                    AggregateTests.pipeline(["$sort": [.init(stringLiteral: name): 1]]), AggregateTests.pipeline(["$count": .string(name)]),
                    AggregateTests.pipeline(["$project": [.init(stringLiteral: name): 1]]),
                    AggregateTests.pipeline(["$match": [.init(stringLiteral: name): 1]]),
                ]
                for query in refused {
                    let reply = try await client.get("/aggregate/TestObject", query: query, master: true)
                    Support.expectClientError(reply)
                    #expect([102, 105].contains(reply["code"]?.intValue), "\(name): \(reply.body)")
                }
            }
            #expect(try await Support.masterCount(client, "TestObject") == 4)
            Support.expectError(try await client.get("/aggregate/No%20Class", query: ["distinct": "a"], master: true), status: 400, code: 103)
        }
    }

    @Test("huge and deep pipelines are refused with 102 before they run", arguments: TestStore.allCases)
    func huge(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await AggregateTests.seed(client)
            let long = ParseValue.array(Array(repeating: ["$match": ["score": 10]], count: AggregatePipeline.maximumStages + 1))
            Support.expectError(try await client.get("/aggregate/TestObject", query: ["pipeline": long], master: true), status: 400, code: 102)
            let atBound = ParseValue.array(Array(repeating: ["$skip": 0], count: AggregatePipeline.maximumStages))
            #expect(try await AggregateTests.results(client, ["pipeline": atBound]).count == 4)
            var nested: ParseValue = ["score": 10]
            for _ in 0..<12 { nested = ["$or": [nested]] }
            Support.expectError(
                try await client.get("/aggregate/TestObject", query: AggregateTests.pipeline(["$match": nested]), master: true), status: 400, code: 102)
            let manyValues = ParseValue.array((0..<40_000).map { .number(Double($0)) })
            let reply = try await client.post(
                "/aggregate/TestObject", ["_method": "GET", "pipeline": [["$match": ["score": ["$in": manyValues]]]]], master: true)
            Support.expectError(reply, status: 400, code: 102)
        }
    }

    @Test("a sum past the largest number answers 102, not a broken body", arguments: TestStore.allCases)
    func overflow(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for _ in 0..<2 { try await Support.create(client, "Huge", ["n": 1e308]) }
            let sum = AggregateTests.pipeline(["$group": ["_id": .null, "s": ["$sum": "$n"]]])
            Support.expectError(try await client.get("/aggregate/Huge", query: sum, master: true), status: 400, code: 102)
            let most = AggregateTests.pipeline(["$group": ["_id": .null, "m": ["$max": "$n"]]])
            #expect(try await AggregateTests.results(client, most, className: "Huge") == [["objectId": .null, "m": 1e308]])
        }
    }

    @Test("more results than one answer holds answer 154", arguments: TestStore.allCases)
    func resultBound(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.batchCreate(client, "Many", count: StorageQuery.maximumLimit + 1) { ["n": .number(Double($0))] }
            let group = try await client.get("/aggregate/Many", query: AggregateTests.pipeline(["$group": ["_id": "$n"]]), master: true)
            Support.expectError(group, status: 400, code: 154)
            Support.expectError(try await client.get("/aggregate/Many", query: ["distinct": "n"], master: true), status: 400, code: 154)
            let limited = AggregateTests.pipeline(["$group": ["_id": "$n"]], ["$limit": 1000])
            #expect(try await AggregateTests.results(client, limited, className: "Many").count == 1000)
            #expect(try await AggregateTests.results(client, ["distinct": "n", "where": ["n": ["$lt": 10]]], className: "Many").count == 10)
        }
    }

    @Test("an aggregate past its database's bound on SQLite instructions stops there and answers 102")
    func workBound() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-aggregate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.sqlite").path
        try await TemporaryStorage.insert(500, "Many", idPrefix: "m", bytes: 10, into: SQLiteObjectStore(try SQLiteAppDatabase(path: path)))
        let pipeline = AggregatePipeline(stages: [.sort([AggregateSortKey(field: "n", ascending: false)]), .group(AggregateGroup(key: .field("n"), accumulators: []))])
        let bounded = SQLiteObjectStore(try SQLiteAppDatabase(path: path, aggregateInstructions: 5_000))
        await #expect(throws: ParseError.self) { try await bounded.aggregate("Many", pipeline: pipeline, budget: ReadBudget()) }
        await #expect(throws: ParseError.self) { try await bounded.distinct("Many", field: "n", constraints: [:], budget: ReadBudget()) }
        do {
            _ = try await bounded.aggregate("Many", pipeline: pipeline, budget: ReadBudget())
        } catch let error as ParseError {
            #expect(error.code == 102 && error.message.contains("more work"), "\(error)")
        }
        let unbounded = SQLiteObjectStore(try SQLiteAppDatabase(path: path))
        #expect(try await unbounded.aggregate("Many", pipeline: pipeline, budget: ReadBudget()).count == 500)
        #expect(try await bounded.distinct("Many", field: "n", constraints: ["objectId": "m1"], budget: ReadBudget()) == [1])
    }

    @Test("an app's aggregates see only its own objects", arguments: TestStore.allCases)
    func tenants(store: TestStore) async throws {
        try await RateLimitRouteTests.withApps(.off, store: store) { a, b in
            try await Support.create(b, "Notes", ["text": "b's note", "n": 1])
            #expect(try await AggregateTests.results(a, ["distinct": "text"], className: "Notes") == [])
            let all = AggregateTests.pipeline(["$group": ["_id": .null, "n": ["$sum": 1]]])
            #expect(try await AggregateTests.results(a, all, className: "Notes") == [])
            #expect(try await AggregateTests.results(b, ["distinct": "text"], className: "Notes") == ["b's note"])
            let crossed = try await a.raw(
                .get, "/aggregate/Notes?distinct=text", headers: TenantIsolationTests.headers(app: "b", key: "master-a", master: true), body: nil)
            Support.expectError(crossed, status: 403, code: 119)
        }
    }
}
