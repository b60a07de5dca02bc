import Foundation
import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
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

    @Test("distinct answers each value once: numbers, nested fields, array elements, pointers and columns; where narrows it")
    func distinct() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$match takes a query's where: comparisons, $or, $in, $regex, objectId and dates")
    func match() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$group by null and by a field, with $sum of 1 and of a field, $avg, $min and $max; the key comes back as objectId")
    func group() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$group by an object of fields and date parts: the key comes back as that object, dates taken in UTC as PostgreSQL extracts them")
    func compoundGroup() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$project keeps, renames and drops fields; objectId stays unless _id is 0")
    func project() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$sort, $skip and $limit in any order and combination, as stages or as parameters")
    func sortSkipLimit() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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

    @Test("$count answers one row with the number of rows, none when there are none; where is a first $match")
    func count() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
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
