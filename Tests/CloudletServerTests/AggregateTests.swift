import Foundation
import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// `GET /aggregate/:className` as Parse Server answers it on PostgreSQL: `distinct` and pipelines.
@Suite("Aggregate: distinct and pipelines")
struct AggregateTests {
    /// Parse Server's aggregate test data: four objects of `TestObject`.
    static func seed(_ client: ParseTestClient) async throws {
        let rows: [(Int, String, String, Int, [ParseValue])] = [
            (10, "foo", "A", 900, ["S", "M"]), (10, "foo", "A", 800, ["M", "L"]), (10, "bar", "B", 700, ["S"]), (20, "dpl", "B", 700, ["S"]),
        ]
        for (score, name, group, views, size) in rows {
            try await Support.create(
                client, "TestObject",
                ["score": .number(Double(score)), "name": .string(name), "sender": ["group": .string(group)], "views": .number(Double(views)),
                 "size": .array(size)])
        }
    }

    /// The results of an aggregate with the master key, checked to be a 200.
    static func results(
        _ client: ParseTestClient, _ query: [String: ParseValue], className: String = "TestObject",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [ParseValue] {
        let reply = try await client.get("/aggregate/\(className)", query: query, master: true)
        #expect(reply.status == 200, "\(query): \(reply.body)", sourceLocation: sourceLocation)
        return reply["results"]?.arrayValue ?? []
    }

    static func pipeline(_ stages: ParseValue...) -> [String: ParseValue] { ["pipeline": .array(stages)] }

    @Test("distinct answers each value once: numbers, nested fields, array elements, pointers and columns; where narrows it", arguments: TestStore.allCases)
    func distinct(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            #expect(Set(try await Self.results(client, ["distinct": "score"])) == [10, 20])
            #expect(try await Self.results(client, ["distinct": "score", "where": ["name": "bar"]]) == [10])
            #expect(try await Self.results(client, ["distinct": "name", "where": ["views": ["$lt": 800]]]).count == 2)
            #expect(Set(try await Self.results(client, ["distinct": "sender.group"])) == ["A", "B"])
            #expect(Set(try await Self.results(client, ["distinct": "size"])) == ["S", "M", "L"])
            #expect(try await Self.results(client, ["distinct": "unknown"]) == [])
            #expect(try await Self.results(client, ["distinct": "score"], className: "NoSuchClass") == [])
            #expect(try await Self.results(client, ["distinct": "objectId"]).count == 4)
            #expect(try await Self.results(client, ["distinct": "createdAt"]).allSatisfy { $0.parseType == "Date" })

            let target = try await Support.create(client, "PointerObject", [:])
            for _ in 0..<2 { try await Support.create(client, "Holder", ["pointer": .pointer(className: "PointerObject", objectId: target)]) }
            try await Support.create(client, "Holder", ["pointer": .null, "flag": true])
            let pointers = try await Self.results(client, ["distinct": "pointer"], className: "Holder")
            #expect(pointers == [.pointer(className: "PointerObject", objectId: target)])
            #expect(try await Self.results(client, ["distinct": "flag"], className: "Holder") == [true])
        }
    }

    @Test("$match takes a query's where: comparisons, $or, $in, $regex, objectId and dates", arguments: TestStore.allCases)
    func match(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            let high = try await Self.results(client, Self.pipeline(["$match": ["score": ["$gt": 15]]]))
            #expect(high.map { $0["score"] } == [20])
            #expect(high.first?["objectId"]?.stringValue != nil && Support.isParseDate(high.first?["createdAt"]?.stringValue))
            #expect(high.first?["ACL"] == nil)
            #expect(try await Self.results(client, Self.pipeline(["$match": ["score": ["$gt": 5, "$lt": 15], "views": 900]])).count == 1)
            let either = Self.pipeline(["$match": ["$or": [["score": ["$gt": 15, "$lt": 25]], ["views": ["$gt": 750, "$lt": 850]]]]])
            #expect(Set(try await Self.results(client, either).compactMap { $0["views"] }) == [700, 800])
            #expect(try await Self.results(client, Self.pipeline(["$match": ["name": ["$in": ["bar", "dpl"]]]])).count == 2)
            #expect(try await Self.results(client, Self.pipeline(["$match": ["name": ["$regex": "^f"]]])).count == 2)
            let id = try #require(high.first?["objectId"])
            #expect(try await Self.results(client, Self.pipeline(["$match": ["objectId": id]])).count == 1)
            let past: ParseValue = ["createdAt": ["$gte": ["__type": "Date", "iso": "2000-01-01T00:00:00.000Z"]]]
            #expect(try await Self.results(client, Self.pipeline(["$match": past])).count == 4)
            #expect(try await Self.results(client, Self.pipeline(["$match": ["score": 10]], ["$match": ["views": 700]])).count == 1)
        }
    }

    @Test("$group by null and by a field, with $sum of 1 and of a field, $avg, $min and $max; the key comes back as objectId", arguments: TestStore.allCases)
    func group(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            let all = try await Self.results(
                client,
                Self.pipeline(
                    ["$group": ["_id": .null, "count": ["$sum": 1], "total": ["$sum": "$score"], "average": ["$avg": "$score"],
                                "least": ["$min": "$score"], "most": ["$max": "$views"], "first": ["$min": "$name"]]]))
            #expect(all == [["objectId": .null, "count": 4, "total": 50, "average": 12.5, "least": 10, "most": 900, "first": "bar"]])
            #expect(try await Self.results(client, Self.pipeline(["$group": ["_id": ""]])) == [["objectId": .null]])

            let byName = try await Self.results(
                client, Self.pipeline(["$group": ["_id": "$name", "n": ["$sum": 1], "views": ["$sum": "$views"]]], ["$sort": ["objectId": 1]]))
            #expect(
                byName == [
                    ["objectId": "bar", "n": 1, "views": 700], ["objectId": "dpl", "n": 1, "views": 700],
                    ["objectId": "foo", "n": 2, "views": 1700],
                ])
            let byScore = try await Self.results(client, Self.pipeline(["$group": ["_id": "$score"]], ["$sort": ["objectId": -1]]))
            #expect(byScore == [["objectId": 20], ["objectId": 10]])
            let byNested = try await Self.results(
                client, Self.pipeline(["$group": ["_id": "$sender.group", "avg": ["$avg": "$views"]]], ["$sort": ["avg": 1]]))
            #expect(byNested == [["objectId": "B", "avg": 700], ["objectId": "A", "avg": 850]])
            #expect(try await Self.results(client, Self.pipeline(["$group": ["_id": .null, "n": ["$sum": 1]]]), className: "NoSuchClass") == [])
            let popular = Self.pipeline(["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$match": ["n": ["$gt": 1]]])
            #expect(try await Self.results(client, popular) == [["objectId": "foo", "n": 2]])
            let named = Self.pipeline(["$group": ["_id": "$name", "n": ["$sum": 2]]], ["$match": ["objectId": "bar"]])
            #expect(try await Self.results(client, named) == [["objectId": "bar", "n": 2]])

            let target = try await Support.create(client, "PointerObject", [:])
            for _ in 0..<2 { try await Support.create(client, "Holder", ["pointer": .pointer(className: "PointerObject", objectId: target)]) }
            try await Support.create(client, "Holder", ["other": 1])
            let pointerCounts = Self.pipeline(["$group": ["_id": "$pointer", "n": ["$sum": 1]]], ["$sort": ["n": 1]])
            let byPointer = try await Self.results(client, pointerCounts, className: "Holder")
            #expect(byPointer == [["objectId": .null, "n": 1], ["objectId": .string(target), "n": 2]])
        }
    }

    @Test("$group by an object of fields and date parts: the key comes back as that object, dates taken in UTC as PostgreSQL extracts them", arguments: TestStore.allCases)
    func compoundGroup(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            let byNameAndScore = try await Self.results(
                client, Self.pipeline(["$group": ["_id": ["name": "$name", "score": "$score"], "n": ["$sum": 1]]], ["$sort": ["n": -1]]))
            #expect(byNameAndScore.first == ["objectId": ["name": "foo", "score": 10], "n": 2])
            #expect(Set(byNameAndScore.dropFirst()) == [["objectId": ["name": "bar", "score": 10], "n": 1], ["objectId": ["name": "dpl", "score": 20], "n": 1]])

            // 2024-12-30 is a Monday in ISO week 1 of 2025; 2027-01-03 a Sunday in week 53 of 2026.
            for iso in ["2024-12-30T23:59:58.750Z", "2024-12-30T08:00:00.000Z", "2027-01-03T12:30:15.250Z"] {
                try await Support.create(client, "Visit", ["at": ["__type": "Date", "iso": .string(iso)]])
            }
            let parts: ParseValue = [
                "year": ["$year": "$at"], "month": ["$month": "$at"], "day": ["$dayOfMonth": "$at"], "weekday": ["$dayOfWeek": "$at"],
                "isoWeekday": ["$isoDayOfWeek": "$at"], "week": ["$week": "$at"], "isoYear": ["$isoWeekYear": "$at"],
                "dayOfYear": ["$dayOfYear": "$at"],
            ]
            let byDay = try await Self.results(
                client, Self.pipeline(["$group": ["_id": parts, "n": ["$sum": 1]]], ["$sort": ["n": -1]]), className: "Visit")
            #expect(
                byDay == [
                    ["objectId": ["year": 2024, "month": 12, "day": 30, "weekday": 1, "isoWeekday": 1, "week": 1, "isoYear": 2025, "dayOfYear": 365], "n": 2],
                    ["objectId": ["year": 2027, "month": 1, "day": 3, "weekday": 0, "isoWeekday": 7, "week": 53, "isoYear": 2026, "dayOfYear": 3], "n": 1],
                ])
            let clock: ParseValue = ["hour": ["$hour": "$at"], "minute": ["$minute": "$at"], "second": ["$second": "$at"], "ms": ["$millisecond": "$at"]]
            let late = try await Self.results(
                client, Self.pipeline(["$match": ["at": ["$gt": ["__type": "Date", "iso": "2024-12-30T12:00:00.000Z"]]]], ["$group": ["_id": clock]], ["$sort": ["objectId": 1]]),
                className: "Visit")
            #expect(late == [["objectId": ["hour": 12, "minute": 30, "second": 15, "ms": 15250]], ["objectId": ["hour": 23, "minute": 59, "second": 59, "ms": 58750]]])
            let created = try await Self.results(client, Self.pipeline(["$group": ["_id": ["year": ["$year": "$createdAt"]], "n": ["$sum": 1]]]), className: "Visit")
            let thisYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
            #expect(created == [["objectId": ["year": .number(Double(thisYear))], "n": 3]])
        }
    }

    @Test("$project keeps, renames and drops fields; objectId stays unless _id is 0", arguments: TestStore.allCases)
    func project(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            let named = try await Self.results(client, Self.pipeline(["$match": ["score": 20]], ["$project": ["name": 1, "group": "$sender.group"]]))
            #expect(named.count == 1)
            #expect(Set(named.first?.objectValue?.keys.map { $0 } ?? []) == ["objectId", "name", "group"])
            #expect(named.first?["group"] == "B")
            let bare = try await Self.results(client, Self.pipeline(["$match": ["score": 20]], ["$project": ["_id": 0, "views": 1, "missing": 1]]))
            #expect(bare == [["views": 700]])
            let thenGroup = try await Self.results(
                client, ["$project": ["score": 1], "$group": ["_id": "$score", "score": ["$sum": "$score"]], "$sort": ["objectId": 1]])
            #expect(thenGroup == [["objectId": 10, "score": 30], ["objectId": 20, "score": 20]])
            let dates = try await Self.results(client, Self.pipeline(["$project": ["createdAt": 1]], ["$match": ["createdAt": ["$exists": true]]]))
            #expect(dates.count == 4 && dates.allSatisfy { Support.isParseDate($0["createdAt"]?.stringValue) })
        }
    }

    @Test("$sort, $skip and $limit in any order and combination, as stages or as parameters", arguments: TestStore.allCases)
    func sortSkipLimit(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            func views(_ query: [String: ParseValue]) async throws -> [ParseValue] { try await Self.results(client, query).compactMap { $0["views"] } }
            #expect(try await views(Self.pipeline(["$sort": ["views": -1]])) == [900, 800, 700, 700])
            #expect(try await views(Self.pipeline(["$sort": ["views": 1]], ["$skip": 1], ["$limit": 2])) == [700, 800])
            #expect(try await views(Self.pipeline(["$sort": ["views": -1]], ["$limit": 3], ["$skip": 2])) == [700])
            #expect(try await views(Self.pipeline(["$sort": ["views": -1]], ["$limit": 2], ["$sort": ["views": 1]])) == [800, 900])
            #expect(try await views(Self.pipeline(["$sort": ["views": -1]], ["$match": ["score": 10]])) == [900, 800, 700])
            #expect(try await views(["$sort": ["views": -1], "$skip": 1, "$limit": 2]) == [800, 700])
            #expect(try await Self.results(client, ["$limit": 2]).count == 2)
            #expect(try await Self.results(client, ["$skip": 3]).count == 1)
            let names = try await Self.results(client, Self.pipeline(["$sort": ["name": -1]])).compactMap { $0["name"] }
            #expect(names == ["foo", "foo", "dpl", "bar"])
            let top = try await Self.results(
                client, Self.pipeline(["$group": ["_id": "$name", "n": ["$sum": 1]]], ["$sort": ["n": -1]], ["$limit": 1]))
            #expect(top == [["objectId": "foo", "n": 2]])
        }
    }

    /// The rows of a pipeline sent in a body as exactly `json` (its members in that order).
    static func rows(_ client: ParseTestClient, pipeline json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [ParseValue] {
        let reply = try await Support.send(client, .post, "/aggregate/TestObject", text: #"{"pipeline": \#(json)}"#, headers: Support.clientHeaders(master: true))
        #expect(reply.status == 200, "\(json): \(reply.body)", sourceLocation: sourceLocation)
        return reply["results"]?.arrayValue ?? []
    }

    /// The `name` of each row of a pipeline sent as exactly `json`.
    static func names(_ client: ParseTestClient, pipeline json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        try await rows(client, pipeline: json, sourceLocation: sourceLocation).compactMap { $0["name"]?.stringValue }
    }

    @Test("$sort of several fields orders by them in the order the request wrote them, each ascending or descending", arguments: TestStore.allCases)
    func sortSeveralFields(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            // (score, views): foo (10, 900), foo (10, 800), bar (10, 700), dpl (20, 700).
            #expect(try await Self.names(client, pipeline: #"[{"$sort": {"score": 1, "views": 1}}]"#) == ["bar", "foo", "foo", "dpl"])
            #expect(try await Self.names(client, pipeline: #"[{"$sort": {"views": 1, "score": 1}}]"#) == ["bar", "dpl", "foo", "foo"])
            #expect(try await Self.names(client, pipeline: #"[{"$sort": {"views": 1, "score": -1}}]"#) == ["dpl", "bar", "foo", "foo"])
            #expect(try await Self.names(client, pipeline: #"[{"$sort": {"score": -1, "views": -1}}, {"$limit": 3}]"#) == ["dpl", "foo", "foo"])
            #expect(try await Self.names(client, pipeline: #"{"$sort": {"views": -1, "name": 1}}"#) == ["foo", "foo", "bar", "dpl"])
            let twice = #"[{"$sort": {"views": 1, "score": -1}}, {"$limit": 3}, {"$sort": {"score": -1, "views": -1}}]"#
            #expect(try await Self.names(client, pipeline: twice) == ["dpl", "foo", "bar"])
            // A repeated field keeps its first place and its last direction, as Parse Server's JSON.parse does.
            #expect(try await Self.names(client, pipeline: #"[{"$sort": {"views": 1, "score": 1, "views": -1}}]"#) == ["foo", "foo", "bar", "dpl"])
            // In the URL, as a pipeline or as the request's own $sort; and in the JavaScript SDK's body form.
            let url = try await Self.results(client, ["pipeline": #"[{"$sort": {"views": 1, "score": -1}}]"#])
            #expect(url.compactMap { $0["name"]?.stringValue } == ["dpl", "bar", "foo", "foo"])
            let own = try await Self.results(client, ["$sort": #"{"views": 1, "score": -1}"#, "$limit": "2"])
            #expect(own.compactMap { $0["name"]?.stringValue } == ["dpl", "bar"])
            let sdk = try await Support.send(
                client, .post, "/aggregate/TestObject",
                text: #"{"_method": "GET", "_ApplicationId": "test", "_MasterKey": "master-key", "pipeline": [{"$sort": {"views": 1, "score": -1}}]}"#,
                headers: [:])
            #expect(sdk["results"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["dpl", "bar", "foo", "foo"], "\(sdk.body)")
        }
    }

    @Test("$sort after a $group: _id and objectId name the key, an object key's members sort by name, as PostgreSQL names their columns", arguments: TestStore.allCases)
    func sortGroups(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            let byScore = #"{"$group": {"_id": "$score", "n": {"$sum": 1}}}"#
            #expect(try await Self.rows(client, pipeline: "[\(byScore), {\"$sort\": {\"_id\": -1}}]").map { $0["objectId"] } == [20, 10])
            #expect(try await Self.rows(client, pipeline: "[\(byScore), {\"$sort\": {\"n\": 1, \"objectId\": -1}}]").map { $0["objectId"] } == [20, 10])
            let byPair = #"{"$group": {"_id": {"name": "$name", "score": "$score"}, "n": {"$sum": 1}}}"#
            func pairs(_ sort: String) async throws -> [String] {
                try await Self.rows(client, pipeline: "[\(byPair), {\"$sort\": \(sort)}]").compactMap { $0["objectId"]?["name"]?.stringValue }
            }
            #expect(try await pairs(#"{"n": -1, "name": 1}"#) == ["foo", "bar", "dpl"])
            #expect(try await pairs(#"{"score": -1, "name": 1}"#) == ["dpl", "bar", "foo"])
            #expect(try await pairs(#"{"name": 1, "score": -1}"#) == ["bar", "dpl", "foo"])
            #expect(try await pairs(#"{"_id": -1}"#) == ["foo", "dpl", "bar"])
        }
    }

    @Test("$count answers one row with the number of rows, none when there are none; where is a first $match", arguments: TestStore.allCases)
    func count(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            #expect(try await Self.results(client, Self.pipeline(["$match": ["score": 10]], ["$count": "tens"])) == [["tens": 3]])
            #expect(try await Self.results(client, Self.pipeline(["$match": ["score": 99]], ["$count": "none"])) == [])
            var query = Self.pipeline(["$count": "n"])
            query["where"] = ["name": "foo"]
            #expect(try await Self.results(client, query) == [["n": 2]])
            #expect(try await Self.results(client, ["$count": "all"]) == [["all": 4]])
            #expect(try await Self.results(client, [:]).count == 4)
            // The Parse Swift SDK's POST form: the members in a JSON body.
            let posted = try await client.post(
                "/aggregate/TestObject", ["pipeline": [["$count": "n"]], "includeReadPreference": "PRIMARY"], master: true)
            #expect(posted["results"] == [["n": 4]], "\(posted.body)")
            Support.expectError(try await client.post("/aggregate/TestObject", ["distinct": "score"]), status: 403, code: 119)
        }
    }
}
