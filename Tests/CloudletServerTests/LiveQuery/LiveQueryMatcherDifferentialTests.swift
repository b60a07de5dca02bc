import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// The LiveQuery matcher against the stores: one corpus of objects stored through each store, and
/// for every query the objects the store finds (as the REST API runs a query) must be the objects
/// the matcher accepts, read back from that store; a malformed `where` gets the same code from both.
@Suite struct LiveQueryMatcherDifferentialTests {
    private static let className = "Live"
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)
    private static let someDate = ParseValue.date(start.addingTimeInterval(7 * 3600))

    private static func person(_ id: String, className: String = "Person") -> ParseValue {
        .pointer(className: className, objectId: id)
    }

    private static func point(_ latitude: Double, _ longitude: Double) -> ParseValue {
        .geoPoint(latitude: latitude, longitude: longitude)
    }

    /// What an array field's elements are drawn from: every JSON type and Parse's, and one text
    /// written composed and decomposed.
    private static let elements: [ParseValue] = [
        "apple", "Banana", 3, 7.5, true, false, .null, ["x"], ["k": 1], person("u1"), someDate, "\u{e9}", "e\u{301}",
    ]

    /// What `meta.v` holds, by object: a field path whose value takes every type.
    private static let metaValues: [ParseValue?] = [
        "7", 7, true, .null, [7, "7", true], someDate, person("u1"), ["k": 1], nil, "apple", 7.5,
    ]

    /// Forty-eight objects of ``className`` whose fields cover each kind of value, some missing, some null.
    private static var corpus: [ParseObject] {
        let words = ["apple", "Banana", "cherry", "apple pie", "\u{e9}clair", "e\u{301}clair", "", "zebra", "Apple", "日本", "a\nb", "123"]
        return (0..<48).map { n in
            var fields: [String: ParseValue] = [:]
            if n % 7 != 3 { fields["n"] = n % 11 == 5 ? .null : .number(Double((n * 37) % 23) - 5 + (n % 4 == 0 ? 0.5 : 0)) }
            if n % 5 != 2 { fields["s"] = .string(words[n % words.count]) }
            if n % 3 != 0 { fields["b"] = .bool(n % 2 == 0) }
            if n % 4 != 1 { fields["when"] = .date(start.addingTimeInterval(Double((n * 7919) % 31) * 3600)) }
            if n % 2 == 0 { fields["owner"] = person("u\(n % 8 / 2)") }
            if n % 9 != 8 { fields["tags"] = .array((0..<(n % 5)).map { elements[(n * 3 + $0 * 5) % elements.count] }) }
            if n % 5 != 0 {
                var place: [String: ParseValue] = ["city": .string(["Oslo", "Lima", "Pune"][n % 3]), "floor": n % 6 == 1 ? "2" : .number(Double(n % 4))]
                if n % 7 == 0 { place["inner"] = ["deep": .number(Double(n))] }
                fields["place"] = .object(place)
            }
            if n % 12 != 11 {
                let value = metaValues[n % metaValues.count]
                fields["meta"] = .object(value.map { ["v": $0] } ?? [:])
            }
            if n % 8 != 7 { fields["loc"] = point(Double((n * 13) % 37) - 18.25, Double((n * 17) % 41) - 19.5) }
            if n % 6 == 0 {
                let (a, b) = (Double(n % 30) - 10, Double(n % 30) - 12)
                fields["area"] = ["__type": "Polygon", "coordinates": [[.number(a), .number(b)], [.number(a + 5), .number(b)], [.number(a + 5), .number(b + 5)], [.number(a), .number(b + 5)], [.number(a), .number(b)]]]
            }
            let created = start.addingTimeInterval(Double(n % 10) * 60)
            return ParseObject(
                className: className, objectId: String(format: "o%02d", n), createdAt: created, updatedAt: created.addingTimeInterval(Double(n)),
                fields: fields)
        }
    }

    /// Objects of another class with the fields of the corpus's first few: a subscription never matches them.
    private static var others: [ParseObject] {
        corpus.prefix(6).map { object in
            var other = object
            other.className = "Other"
            return other
        }
    }

    /// The `where`s, each decidable on one object, together covering every operator the matcher supports.
    private static var queries: [[String: ParseValue]] {
        let corpus = corpus
        let triangle: ParseValue = [point(-15, -15), point(15, -10), point(10, 20), point(-12, 12)]
        return [
            [:],
            ["s": "apple"], ["s": "\u{e9}clair"], ["s": "e\u{301}clair"], ["s": ["$eq": "Banana"]], ["s": ["$ne": "apple"]], ["s": .null],
            ["s": ["$ne": .null]], ["s": ["$gt": "a"]], ["s": ["$lte": "apple pie"]], ["s": ["$lt": "\u{e9}"]],
            ["s": ["$in": ["apple", "zebra", .null]]], ["s": ["$nin": ["apple", "zebra"]]], ["s": ["$regex": "^a"]],
            ["s": ["$regex": "APPLE", "$options": "i"]], ["s": ["$regex": "^\\d+$"]], ["s": ["$regex": "\u{e9}"]],
            ["s": ["$regex": "^a.b$", "$options": "s"]], ["s": ["$regex": "^b$", "$options": "m"]], ["s": ["$exists": false]],
            ["n": 7], ["n": ["$gt": 3]], ["n": ["$gte": -2, "$lt": 10.5]], ["n": ["$in": [1, 7, 12.5]]], ["n": ["$nin": [1, 7]]],
            ["n": .null], ["n": ["$exists": true]], ["n": ["$exists": true, "$ne": .null]],
            ["b": true], ["b": ["$ne": true]], ["b": false],
            ["when": someDate], ["when": ["$gt": someDate]], ["when": ["$lte": someDate]],
            ["when": ["$in": [someDate, .date(start)]]], ["when": ["$ne": someDate]],
            ["owner": person("u1")], ["owner": person("u1", className: "Other")], ["owner": ["$ne": person("u1")]],
            ["owner": ["$in": [person("u1"), person("u2")]]], ["owner": ["$exists": false]],
            ["tags": "apple"], ["tags": 3], ["tags": true], ["tags": person("u3", className: "Any")], ["tags": "e\u{301}"],
            ["tags": corpus[7].fields["tags"]!], ["tags": .array([])], ["tags": ["$all": ["apple", 3]]], ["tags": ["$all": []]],
            ["tags": ["$in": ["Banana", 7.5, false]]], ["tags": ["$nin": ["apple"]]], ["tags": ["$containedBy": ["apple", "Banana", 3, true]]],
            ["tags": ["$containedBy": [.null, ["x"], ["k": 1], person("u1"), someDate, 7.5, "\u{e9}"]]], ["tags": ["$containedBy": []]],
            ["tags": ["$exists": true]],
            ["place.city": "Lima"], ["place.floor": ["$gte": 2]], ["place.floor": "2"], ["place": corpus[9].fields["place"]!],
            ["place.inner.deep": ["$gt": 10]], ["place.inner": ["$exists": true]],
            ["meta.v": "7"], ["meta.v": 7], ["meta.v": true], ["meta.v": .null], ["meta.v": ["$exists": true]], ["meta.v": ["$gt": 5]],
            ["meta.v": ["$gte": "5"]], ["meta.v": someDate], ["meta.v": ["$lt": .date(start.addingTimeInterval(86_400))]],
            ["meta.v": person("u1", className: "Any")], ["meta.v": ["k": 1]], ["meta.v": [7, "7", true]], ["meta.v": ["$in": [7, "x"]]],
            ["meta.v": ["$containedBy": [7, "7", true]]], ["meta.v": ["$ne": 7]], ["meta.v": ["$regex": "^a"]],
            ["objectId": "o05"], ["objectId": ["$in": ["o01", "o02", "nope"]]], ["objectId": ["$nin": ["o01", "o02"]]],
            ["objectId": ["$gt": "o40"]], ["objectId": ["$regex": "^o1"]], ["createdAt": ["$gte": .date(start.addingTimeInterval(300))]],
            ["createdAt": ["$lt": "2023-11-14T22:16:20.000Z"]], ["updatedAt": .date(start.addingTimeInterval(325))],
            ["createdAt": ["$exists": true]],
            ["$or": [["s": "apple"], ["n": ["$gt": 10]]]], ["$and": [["b": true], ["$or": [["s": "cherry"], ["tags": 3]]]]],
            ["$or": [["tags": "Banana"], ["owner": person("u1")]], "n": ["$exists": true]],
            ["loc": ["$nearSphere": point(10, 10), "$maxDistanceInKilometers": 2500]], ["loc": ["$nearSphere": point(0, 0)]],
            ["loc": ["$nearSphere": point(-5, 3), "$maxDistanceInMiles": 1500, "$maxDistance": 0.3]],
            ["loc": ["$within": ["$box": [point(-10, -10), point(20, 25)]]]], ["loc": ["$geoWithin": ["$polygon": triangle]]],
            ["loc": ["$geoWithin": ["$polygon": [[-15, -15], [15, -10], [10, 20]]]]], ["loc": ["$geoWithin": ["$centerSphere": [[2, 1], 0.25]]]],
            ["area": ["$geoIntersects": ["$point": point(-8, -7)]]], ["loc": corpus[1].fields["loc"]!], ["loc": ["$ne": corpus[1].fields["loc"]!]],
            ["area": ["__type": "Polygon", "coordinates": [[2, 0], [7, 0], [7, 5], [2, 5]]]],
            ["$or": [["loc": ["$within": ["$box": [point(0, 0), point(20, 25)]]]], ["area": ["$geoIntersects": ["$point": point(14.5, 12.5)]]]]],
        ]
    }

    @Test(arguments: TestStore.allCases)
    func theMatcherAcceptsTheObjectsTheStoreFinds(store: TestStore) async throws {
        try await store.with({ app in { try await app.schemas().objects } }) { objects, _ in
            for object in Self.corpus + Self.others { try await objects.insert(object) }
            let stored = try await objects.find(ParseQuery(Self.className, limit: 1000)) + (try await objects.find(ParseQuery("Other", limit: 1000)))
            #expect(stored.count == Self.corpus.count + Self.others.count)
            let queries = Self.queries
            #expect(queries.count >= 100)
            var discriminating = 0
            for constraints in queries {
                let found = Set(try await objects.find(ParseQuery(Self.className, constraints: constraints, limit: 1000)).compactMap(\.objectId))
                let matcher = try LiveQueryMatcher(className: Self.className, where: constraints)
                let accepted = Set(stored.filter(matcher.matches).compactMap(\.objectId))
                #expect(accepted == found, "\(JSONWriter.string(.object(constraints))): the store alone finds \(found.subtracting(accepted).sorted()), the matcher alone accepts \(accepted.subtracting(found).sorted())")
                if !found.isEmpty, found.count < Self.corpus.count { discriminating += 1 }
            }
            #expect(discriminating >= queries.count - 8, "nearly every query finds some objects and not others")
        }
    }

    @Test(arguments: TestStore.allCases)
    func aMalformedWhereGetsTheStoresCode(store: TestStore) async throws {
        let malformed: [[String: ParseValue]] = [
            ["$relatedTo": [:]], ["$nor": [["a": 1]]], ["s": ["$foo": 1]], ["$or": []], ["$and": [1]], ["s": ["$in": 1]],
            ["s": ["$exists": "yes"]], ["s": ["$regex": 1]], ["s": ["$options": "i"]], ["s": ["$regex": "a", "$options": "q"]],
            ["s": ["$regex": "(a)\\1"]], ["s": ["$lt": true]], ["objectId": ["$gt": 1]], ["createdAt": "yesterday"],
            ["loc": ["$nearSphere": 1]], ["loc": ["$within": ["$box": [1]]]], ["loc": ["$maxDistance": 1]],
            ["loc": ["$geoWithin": ["$polygon": [Self.point(0, 0), Self.point(1, 1)]]]], ["loc": ["$geoWithin": ["$centerSphere": [[0, 0], -1]]]],
            ["objectId": ["$within": ["$box": [Self.point(0, 0), Self.point(1, 1)]]]], ["objectId": ["$containedBy": ["a"]]],
            ["s": ["$inQuery": 1]], ["bad key!": 1], ["s": ["__type": "File", "name": "f.txt"]], ["loc": Self.point(91, 0)],
            ["area": ["__type": "Polygon", "coordinates": [[0, 0], [1, 1]]]],
        ]
        try await store.with({ app in { try await app.schemas().objects } }) { objects, _ in
            for constraints in malformed {
                let stored = await #expect(throws: ParseError.self, "\(constraints)") {
                    try await objects.find(ParseQuery(Self.className, constraints: constraints))
                }
                let refused = #expect(throws: ParseError.self, "\(constraints)") {
                    try LiveQueryMatcher(className: Self.className, where: constraints)
                }
                #expect(refused?.code == stored?.code, "\(constraints)")
            }
        }
    }
}
