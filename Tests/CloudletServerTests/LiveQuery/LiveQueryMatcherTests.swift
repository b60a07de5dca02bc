import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// The LiveQuery matcher, operator by operator, on objects made here (the differential test holds
/// it to the stores' answers); and its refusals, with the codes a REST query answers.
@Suite struct LiveQueryMatcherTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private static func object(_ fields: [String: ParseValue], id: String = "o1", className: String = "Item") -> ParseObject {
        ParseObject(className: className, objectId: id, createdAt: start, updatedAt: start.addingTimeInterval(60), fields: fields)
    }

    /// Which of `objects` (by their `name`) match `constraints`.
    private static func matching(_ constraints: [String: ParseValue], _ objects: [String: [String: ParseValue]]) throws -> Set<String> {
        let matcher = try LiveQueryMatcher(className: "Item", where: constraints)
        return Set(objects.filter { matcher.matches(object($0.value)) }.keys)
    }

    /// The code `LiveQueryMatcher` refuses `constraints` with, or nil.
    private static func refusal(_ constraints: [String: ParseValue], className: String = "Item") -> Int? {
        do {
            _ = try LiveQueryMatcher(className: className, where: constraints)
            return nil
        } catch {
            return (error as? ParseError)?.code
        }
    }

    private static let pointer: ParseValue = .pointer(className: "Person", objectId: "u1")

    private static let kinds: [String: [String: ParseValue]] = [
        "string": ["v": "apple"], "number": ["v": 7], "true": ["v": true], "false": ["v": false], "null": ["v": .null], "missing": [:],
        "array": ["v": ["apple", 7, true, ["x"], pointer, .date(start)]], "object": ["v": ["k": 1]], "date": ["v": .date(start)],
        "pointer": ["v": pointer], "numeric text": ["v": "7"],
    ]

    @Test func equalityMatchesAValueOfItsOwnTypeOrAnArrayHoldingIt() throws {
        #expect(try Self.matching(["v": "apple"], Self.kinds) == ["string", "array"])
        #expect(try Self.matching(["v": 7], Self.kinds) == ["number", "array"])
        #expect(try Self.matching(["v": 7.0], Self.kinds) == ["number", "array"])
        #expect(try Self.matching(["v": true], Self.kinds) == ["true", "array"])
        #expect(try Self.matching(["v": .null], Self.kinds) == ["null", "missing"])
        #expect(try Self.matching(["v": ["k": 1]], Self.kinds) == ["object"])
        #expect(try Self.matching(["v": ["x"]], Self.kinds).isEmpty, "an array equals only the same array, never an element")
        #expect(try Self.matching(["v": ["apple", 7, true, ["x"], Self.pointer, .date(Self.start)]], Self.kinds) == ["array"])
        #expect(try Self.matching(["v": .date(Self.start)], Self.kinds) == ["date"], "a Date is not an element of an array")
        #expect(try Self.matching(["v": .pointer(className: "Other", objectId: "u1")], Self.kinds) == ["pointer", "array"], "by id alone")
        #expect(try Self.matching(["v": ["$eq": "7"]], Self.kinds) == ["numeric text"])
    }

    @Test func textComparesByItsBytesNotByCanonicalEquivalence() throws {
        let objects: [String: [String: ParseValue]] = ["composed": ["v": "\u{e9}"], "decomposed": ["v": "e\u{301}"], "upper": ["v": "Z"]]
        #expect(try Self.matching(["v": "\u{e9}"], objects) == ["composed"])
        #expect(try Self.matching(["v": ["$in": ["e\u{301}"]]], objects) == ["decomposed"])
        #expect(try Self.matching(["v": ["$gt": "f"]], objects) == ["composed"], "é is past f in UTF-8; e + accent is not")
        #expect(try Self.matching(["v": ["$lt": "a"]], objects) == ["upper"], "Z sorts before a byte by byte")
    }

    @Test func negationsMatchWhatEqualityDoesNot() throws {
        #expect(try Self.matching(["v": ["$ne": "apple"]], Self.kinds) == Set(Self.kinds.keys).subtracting(["string", "array"]))
        #expect(try Self.matching(["v": ["$ne": .null]], Self.kinds) == Set(Self.kinds.keys).subtracting(["null", "missing"]))
        #expect(try Self.matching(["v": ["$nin": [7, true]]], Self.kinds) == Set(Self.kinds.keys).subtracting(["number", "true", "array"]))
        #expect(try Self.matching(["v": ["$nin": []]], Self.kinds) == Set(Self.kinds.keys))
    }

    @Test func ordersCompareNumbersTextAndDatesEachWithTheirOwnType() throws {
        let objects: [String: [String: ParseValue]] = [
            "low": ["v": 2], "high": ["v": 9.5], "text": ["v": "9"], "early": ["v": .date(Self.start)],
            "late": ["v": .date(Self.start.addingTimeInterval(3600))], "array": ["v": [1, 20]],
        ]
        #expect(try Self.matching(["v": ["$gt": 2]], objects) == ["high"])
        #expect(try Self.matching(["v": ["$gte": 2, "$lt": 9.5]], objects) == ["low"])
        #expect(try Self.matching(["v": ["$lte": "a"]], objects) == ["text"])
        #expect(try Self.matching(["v": ["$gt": .date(Self.start)]], objects) == ["late"])
        #expect(try Self.matching(["v": ["$lte": .date(Self.start)]], objects) == ["early"])
    }

    @Test func listsMatchAsTheStoresMatchThem() throws {
        let objects: [String: [String: ParseValue]] = [
            "ab": ["v": ["a", "b"]], "a": ["v": ["a"]], "empty": ["v": []], "abc": ["v": ["a", "b", "c"]], "text": ["v": "a"],
            "mixed": ["v": [1, .null, ["x"], Self.pointer, .date(Self.start)]], "missing": [:],
        ]
        #expect(try Self.matching(["v": ["$in": ["b", 1]]], objects) == ["ab", "abc", "mixed"])
        #expect(try Self.matching(["v": ["$in": []]], objects).isEmpty)
        #expect(try Self.matching(["v": ["$all": ["a", "b"]]], objects) == ["ab", "abc"])
        #expect(try Self.matching(["v": ["$all": []]], objects) == Set(objects.keys))
        #expect(try Self.matching(["v": ["$all": ["a"]]], objects) == ["ab", "a", "abc", "text"])
        #expect(try Self.matching(["v": ["$containedBy": ["a", "b"]]], objects) == ["ab", "a", "empty"])
        let everyElement: ParseValue = [1, .null, ["x"], .pointer(className: "Any", objectId: "u1"), .date(Self.start)]
        #expect(try Self.matching(["v": ["$containedBy": everyElement]], objects) == ["empty", "mixed"])
        #expect(try Self.matching(["v": ["$containedBy": []]], objects) == ["empty"])
    }

    @Test func existsCountsNullAsPresent() throws {
        #expect(try Self.matching(["v": ["$exists": true]], Self.kinds) == Set(Self.kinds.keys).subtracting(["missing"]))
        #expect(try Self.matching(["v": ["$exists": false]], Self.kinds) == ["missing"])
        #expect(try Self.matching(["objectId": ["$exists": false]], Self.kinds).isEmpty)
    }

    @Test func aRegexTestsStringsOnlyWithItsOptions() throws {
        let objects: [String: [String: ParseValue]] = [
            "apple": ["v": "Apple pie"], "lines": ["v": "one\napple"], "number": ["v": 7], "array": ["v": ["apple"]], "missing": [:],
        ]
        #expect(try Self.matching(["v": ["$regex": "^apple"]], objects).isEmpty)
        #expect(try Self.matching(["v": ["$regex": "^apple", "$options": "im"]], objects) == ["apple", "lines"])
        #expect(try Self.matching(["v": ["$regex": "apple", "$options": "i"]], objects) == ["apple", "lines"])
        #expect(try Self.matching(["v": ["$regex": "\\d"]], objects).isEmpty)
        #expect(try Self.matching(["objectId": ["$regex": "^o"]], objects) == Set(objects.keys))
    }

    @Test func aRegexPastItsStepsDoesNotMatchRatherThanRunOn() throws {
        // Every character costs this pattern several steps: 400,000 of them are past the steps of one object.
        let long = String(repeating: "a", count: 400_000) + "b"
        let objects: [String: [String: ParseValue]] = ["long": ["v": .string(long)], "short": ["v": "aab"]]
        #expect(try Self.matching(["v": ["$regex": "(a|aa)*b"]], objects) == ["short"])
        #expect(try Self.matching(["v": ["$regex": "^a+$"]], ["long": ["v": .string(String(repeating: "a", count: 50_000))]]) == ["long"])
    }

    @Test func connectivesAndDottedPaths() throws {
        let objects: [String: [String: ParseValue]] = [
            "oslo": ["place": ["city": "Oslo", "floor": 2]], "lima": ["place": ["city": "Lima", "floor": "2"]], "flat": ["place": "Oslo"],
            "deep": ["place": ["inner": ["deep": 5]]],
        ]
        #expect(try Self.matching(["place.city": "Oslo"], objects) == ["oslo"])
        #expect(try Self.matching(["place.floor": ["$gte": 2]], objects) == ["oslo"])
        #expect(try Self.matching(["place.inner.deep": ["$in": [5]]], objects) == ["deep"])
        #expect(try Self.matching(["$or": [["place.city": "Lima"], ["place.inner.deep": 5]]], objects) == ["lima", "deep"])
        #expect(try Self.matching(["$and": [["place.floor": ["$exists": true]], ["$or": [["place.city": "Lima"], ["place": "Oslo"]]]]], objects) == ["lima"])
        #expect(try Self.matching(["place": ["city": "Oslo", "floor": 2]], objects) == ["oslo"])
    }

    @Test func theColumnsCompareAsTheirStoredText() throws {
        let matcher = try LiveQueryMatcher(className: "Item", where: ["objectId": ["$in": ["o1", "o2"]], "createdAt": .date(Self.start)])
        #expect(matcher.matches(Self.object([:], id: "o2")))
        #expect(!matcher.matches(Self.object([:], id: "o3")))
        #expect(!matcher.matches(Self.object([:], id: "o1", className: "Other")), "an object of another class never matches")
        let later = try LiveQueryMatcher(className: "Item", where: ["updatedAt": ["$gt": "2023-11-14T22:13:20.000Z"], "objectId": ["$lt": "o2"]])
        #expect(later.matches(Self.object([:], id: "o1")))
        #expect(!later.matches(Self.object([:], id: "o2")))
        #expect(try Self.matching(["objectId": .null], ["any": [:]]).isEmpty)
    }

    @Test func geoOperatorsDecideOnePoint() throws {
        func point(_ latitude: Double, _ longitude: Double) -> ParseValue { .geoPoint(latitude: latitude, longitude: longitude) }
        let objects: [String: [String: ParseValue]] = [
            "origin": ["loc": point(0, 0)], "north": ["loc": point(10, 0)], "edge": ["loc": point(5, 5)], "far": ["loc": point(-60, 120)],
            "text": ["loc": "0,0"], "square": ["area": ["__type": "Polygon", "coordinates": [[0, 0], [0, 4], [4, 4], [4, 0], [0, 0]]]],
        ]
        #expect(try Self.matching(["loc": ["$nearSphere": point(0, 0)]], objects) == ["origin", "north", "edge", "far"])
        #expect(try Self.matching(["loc": ["$nearSphere": point(0, 0), "$maxDistanceInKilometers": 1000]], objects) == ["origin", "edge"])
        #expect(try Self.matching(["loc": ["$nearSphere": point(0, 0), "$maxDistanceInKilometers": 1000, "$maxDistance": 0.001]], objects) == ["origin"])
        #expect(try Self.matching(["loc": ["$within": ["$box": [point(5, 5), point(-1, -1)]]]], objects) == ["origin", "edge"], "edges included")
        let triangle: ParseValue = [point(-1, -1), point(11, -1), point(-1, 11)]
        #expect(try Self.matching(["loc": ["$geoWithin": ["$polygon": triangle]]], objects) == ["origin", "north", "edge"])
        #expect(try Self.matching(["loc": ["$geoWithin": ["$centerSphere": [[0, 10], 0.01]]]], objects) == ["north"])
        #expect(try Self.matching(["area": ["$geoIntersects": ["$point": point(2, 2)]]], objects) == ["square"])
        #expect(try Self.matching(["area": ["$geoIntersects": ["$point": point(5, 2)]]], objects).isEmpty)
        #expect(try Self.matching(["loc": point(10, 0)], objects) == ["north"])
        let openSquare: ParseValue = ["__type": "Polygon", "coordinates": [[0, 0], [0, 4], [4, 4], [4, 0]]]
        #expect(try Self.matching(["area": openSquare], objects) == ["square"], "an open ring equals the ring stored closed")
    }

    @Test func operatorsThatNeedOtherObjectsAreRefusedWith102() {
        let inner: ParseValue = ["className": "Person", "where": ["age": 20]]
        let refused: [[String: ParseValue]] = [
            ["owner": ["$inQuery": inner]], ["owner": ["$notInQuery": inner]],
            ["name": ["$select": ["query": inner, "key": "name"]]], ["name": ["$dontSelect": ["query": inner, "key": "name"]]],
            ["$relatedTo": ["object": Self.pointer, "key": "likes"]], ["text": ["$text": ["$search": ["$term": "apple"]]]],
            ["$or": [["n": 1], ["owner": ["$inQuery": inner]]]],
        ]
        for constraints in refused {
            #expect(Self.refusal(constraints) == 102, "\(constraints)")
        }
    }

    @Test func malformedInputGetsTheCodesOfARestQuery() {
        let cases: [(Int, [String: ParseValue])] = [
            (102, ["v": ["$foo": 1]]), (102, ["$or": []]), (102, ["$and": [1]]), (102, ["v": ["$in": 1]]), (102, ["v": ["$exists": "yes"]]),
            (102, ["v": ["$regex": 1]]), (102, ["v": ["$options": "i"]]), (102, ["v": ["$regex": "a", "$options": "q"]]),
            (102, ["v": ["$regex": "(a)\\1"]]), (102, ["v": ["$regex": "(?=a)"]]), (102, ["v": ["$regex": "(a"]]), (102, ["v": ["$lt": true]]),
            (102, ["objectId": ["$gt": 1]]), (102, ["createdAt": "yesterday"]), (102, ["objectId": ["$containedBy": ["a"]]]),
            (102, ["loc": ["$maxDistance": 1]]), (102, ["v": ["__type": "File", "name": "f.txt"]]),
            (102, ["v": ["$in": [.geoPoint(latitude: 1, longitude: 1)]]]), (102, ["objectId": ["$in": [.null]]]),
            (102, ["objectId": ["$within": ["$box": [.geoPoint(latitude: 0, longitude: 0), .geoPoint(latitude: 1, longitude: 1)]]]]),
            (102, ["owner": ["$inQuery": 1]]), (105, ["$nor": [["a": 1]]]), (105, ["bad key!": 1]),
            (107, ["loc": ["$nearSphere": 1]]), (107, ["loc": ["$within": ["$box": [1]]]]), (107, ["loc": ["$nearSphere": .geoPoint(latitude: 0, longitude: 0), "$maxDistance": -1]]),
            (107, ["loc": ["$geoWithin": ["$polygon": [.geoPoint(latitude: 0, longitude: 0), .geoPoint(latitude: 1, longitude: 1)]]]]),
            (107, ["loc": ["$geoIntersects": ["$point": [0, 0]]]]), (107, ["loc": .geoPoint(latitude: 91, longitude: 0)]),
            (107, ["area": ["__type": "Polygon", "coordinates": [[0, 0], [1, 1]]]]),
        ]
        for (code, constraints) in cases {
            #expect(Self.refusal(constraints) == code, "\(constraints)")
        }
        #expect(Self.refusal([:], className: "bad class!") == 103)
    }

    @Test func aWherePastTheBoundsOfARestQueryIsRefusedWith102() throws {
        var nested: [String: ParseValue] = ["n": 1]
        for _ in 0..<QueryBounds.maximumNesting { nested = ["$or": [.object(nested), ["n": 2]]] }
        let hostile: [[String: ParseValue]] = [
            nested,
            ["$or": .array((0...QueryBounds.maximumBranches).map { ["n": .number(Double($0))] })],
            .init(uniqueKeysWithValues: (0...QueryBounds.maximumConditions).map { ("f\($0)", ParseValue.number(1)) }),
            ["n": ["$in": .array((0...QueryBounds.maximumValues).map { .number(Double($0)) })]],
            ["v": ["$regex": .string(String(repeating: "a", count: RegexNode.maximumLength + 1))]],
            ["v": ["$regex": "((a{1000}){1000}){1000}"]],
        ]
        for constraints in hostile {
            #expect(Self.refusal(constraints) == 102)
        }
    }

    @Test func aLongListIsLookedUpAndMatchesAsAShortOneWould() throws {
        let values = (0..<QueryBounds.maximumValues).map { ParseValue.string("v\($0)") }
        let matcher = try LiveQueryMatcher(
            className: "Item", where: ["v": ["$in": .array(Array(values[..<20_000]))], "n": ["$nin": .array(Array(values[20_000...]))]])
        #expect(matcher.matches(Self.object(["v": "v19999"])))
        #expect(matcher.matches(Self.object(["v": ["x", "v17"], "n": "v17"])))
        #expect(!matcher.matches(Self.object(["v": "v20000"])))
        #expect(!matcher.matches(Self.object(["v": "v1", "n": "v20001"])))
    }
}
