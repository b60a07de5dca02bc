import Cloudlet
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletRuntime
@testable import CloudletSQLite

/// The PostgreSQL store's query compiler against the SQLite store's: one corpus of objects in each,
/// every query run by every reader on both, the same objects in the same order and the same counts
/// required.
@Suite struct QueryCompilerDifferentialTests {
    private static let className = "Item"

    /// Thirty objects whose fields cover each kind of value, some missing, some null, with ACLs for
    /// nobody, everyone, one user and one role.
    private static var corpus: [ParseObject] {
        let words = ["apple", "Banana", "cherry", "apple pie", "éclair", "", "zebra", "Apple"]
        let acls: [ParseACL?] = [
            nil, ParseACL(json: ["*": ["read": true]]), ParseACL(json: ["u1": ["read": true, "write": true]]),
            ParseACL(json: ["role:admin": ["read": true]]), ParseACL(json: [:]),
        ]
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return (0..<30).map { n in
            var fields: [String: ParseValue] = [:]
            if n % 7 != 3 { fields["n"] = .number(Double((n * 37) % 23) - 5 + (n % 4 == 0 ? 0.5 : 0)) }
            if n % 5 != 2 { fields["s"] = .string(words[n % words.count]) }
            if n % 6 == 1 { fields["s"] = .null }
            if n % 3 != 0 { fields["b"] = .bool(n % 2 == 0) }
            fields["tags"] = .array(Array(words.prefix(n % 4).map(ParseValue.string)) + (n % 9 == 0 ? ["zebra"] : []))
            if n % 4 != 1 { fields["nums"] = .array([.number(Double(n % 3)), .number(Double(n % 5))]) }
            if n % 3 != 1 { fields["when"] = .date(start.addingTimeInterval(Double((n * 7919) % 31) * 3600)) }
            if n % 2 == 0 { fields["owner"] = ["__type": "Pointer", "className": "Person", "objectId": .string("u\(n % 3)")] }
            if n % 5 != 0 { fields["place"] = ["city": .string(["Oslo", "Lima", "Pune"][n % 3]), "floor": .number(Double(n % 4))] }
            var object = ParseObject(className: className, fields: fields)
            object.objectId = String(format: "obj%02d", (n * 11) % 30)
            object.createdAt = start.addingTimeInterval(Double(n % 10) * 60)
            object.updatedAt = object.createdAt
            object.acl = acls[n % acls.count] ?? nil
            if n % 8 != 7 { object.fields["loc"] = geoPoint(Double((n * 13) % 37) - 18.25, Double((n * 17) % 41) - 19.5) }
            if n % 6 == 0 {
                let (a, b) = (Double(n) - 10, Double(n) - 12)
                object.fields["area"] = ["__type": "Polygon", "coordinates": [[.number(a), .number(b)], [.number(a + 5), .number(b)], [.number(a + 5), .number(b + 5)], [.number(a), .number(b + 5)], [.number(a), .number(b)]]]
            }
            if n % 4 == 2 { object.fields["likes"] = ["__type": "Relation", "className": .string(className)] }
            return object
        }
    }

    private static func geoPoint(_ latitude: Double, _ longitude: Double) -> ParseValue {
        ["__type": "GeoPoint", "latitude": .number(latitude), "longitude": .number(longitude)]
    }

    /// The people the items' `owner` fields point to, one readable by u1 alone.
    private static var people: [ParseObject] {
        (0..<4).map { n in
            var person = ParseObject(className: "Person", fields: ["age": .number(Double(15 + n * 5)), "name": .string(["apple", "zebra", "kiwi", "Banana"][n])])
            person.objectId = "u\(n)"
            person.createdAt = Date(timeIntervalSince1970: 1_600_000_000 + Double(n))
            person.updatedAt = person.createdAt
            if n == 1 { person.acl = ParseACL(json: ["u1": ["read": true]]) }
            return person
        }
    }

    /// The objects each object with a `likes` relation relates: a few others, by id.
    private static func likes(of object: ParseObject) throws -> [String: RelationChange] {
        guard object.fields["likes"] != nil, let id = object.objectId, let n = Int(id.dropFirst(3)) else { return [:] }
        let liked: [ParseValue] = [(n + 1) % 30, (n * 7) % 30, 5].map { .pointer(className: className, objectId: String(format: "obj%02d", $0)) }
        return try ["likes": #require(try RelationChange.parse(["__op": "AddRelation", "objects": .array(liked)], field: "likes"))]
    }

    private static let pointer: ParseValue = ["__type": "Pointer", "className": "Person", "objectId": "u1"]
    private static let date = ParseValue.date(Date(timeIntervalSince1970: 1_700_000_000 + 12 * 3600))

    /// Each a `where` and an order.
    private static let queries: [([String: ParseValue], [String])] = [
        ([:], []),
        (["s": "apple"], []),
        (["s": ["$eq": "Banana"]], ["-createdAt"]),
        (["s": ["$ne": "apple"]], ["s"]),
        (["s": .null], []),
        (["s": ["$ne": .null]], ["-s", "n"]),
        (["n": 7], []),
        (["n": ["$gt": 3]], ["n"]),
        (["n": ["$gte": -2, "$lt": 10.5]], ["-n"]),
        (["n": ["$lte": 0]], ["n", "-objectId"]),
        (["s": ["$gt": "a"]], ["s"]),
        (["s": ["$lt": "apple pie"]], ["-s"]),
        (["b": true], []),
        (["b": false], ["b"]),
        (["b": ["$exists": false]], []),
        (["b": ["$ne": true]], ["b", "-n"]),
        (["tags": "apple"], []),
        (["tags": ["$all": ["apple", "Banana"]]], []),
        (["tags": ["$in": ["cherry", "zebra"]]], ["tags"]),
        (["tags": ["$nin": ["apple"]]], []),
        (["tags": .array([])], []),
        (["tags": ["apple", "Banana"]], []),
        (["nums": 2], []),
        (["nums": ["$all": [0, 1]]], []),
        (["nums": ["$exists": true]], ["-nums"]),
        (["s": ["$in": ["apple", "zebra", .null]]], ["s"]),
        (["s": ["$nin": ["apple", "zebra"]]], []),
        (["n": ["$in": [1, 7, 12.5]]], []),
        // Lists of plain values of several types, and beside values that are not plain.
        (["tags": ["$in": ["apple", 2, true, .null]]], []),
        (["nums": ["$all": [1, 0, 1.0]]], []),
        (["s": ["$nin": ["apple", 7, false, date]]], ["s"]),
        (["when": ["$in": [date, "apple", 7]]], []),
        (["when": date], []),
        (["when": ["$gt": date]], ["when"]),
        (["when": ["$lte": date]], ["-when"]),
        (["owner": pointer], []),
        (["owner": ["$ne": pointer]], []),
        (["owner": ["$in": [pointer, ["__type": "Pointer", "className": "Person", "objectId": "u2"]]]], []),
        (["place.city": "Lima"], ["place.floor"]),
        (["place.floor": ["$gte": 2]], ["-place.city"]),
        (["place": ["city": "Oslo", "floor": 1]], []),
        (["objectId": "obj05"], []),
        (["objectId": ["$in": ["obj01", "obj02", "nope"]]], []),
        (["createdAt": ["$gte": .date(Date(timeIntervalSince1970: 1_700_000_000 + 300))]], ["-createdAt"]),
        (["$or": [["s": "apple"], ["n": ["$gt": 10]]]], ["n"]),
        (["$and": [["b": true], ["$or": [["s": "cherry"], ["nums": 0]]]]], []),
        (["$or": [["tags": "zebra"], ["owner": pointer]], "n": ["$exists": true]], ["-n"]),
        (["s": ["$exists": true], "when": ["$exists": false]], ["s", "objectId"]),
        (["$relatedTo": ["object": ["__type": "Pointer", "className": "Item", "objectId": "obj02"], "key": "likes"]], []),
        (["$relatedTo": ["object": ["__type": "Pointer", "className": "Item", "objectId": "obj06"], "key": "likes"], "n": ["$gt": 0]], ["-n"]),
        (["likes": ["__type": "Pointer", "className": "Item", "objectId": "obj05"]], []),
        (["likes": ["$in": [["__type": "Pointer", "className": "Item", "objectId": "obj07"], ["__type": "Pointer", "className": "Item", "objectId": "obj03"]]]], []),
        (["likes": ["$ne": ["__type": "Pointer", "className": "Item", "objectId": "obj05"]]], []),
        (["owner": ["$inQuery": ["className": "Person", "where": ["age": ["$gte": 20]]]]], ["n"]),
        (["owner": ["$notInQuery": ["className": "Person", "where": ["age": ["$gte": 20]]]]], []),
        (["owner": ["$inQuery": ["className": "Person", "where": ["name": "zebra"]]]], []),
        (["likes": ["$inQuery": ["className": "Item", "where": ["n": ["$gt": 10]]]]], []),
        (["s": ["$select": ["query": ["className": "Person", "where": [:]], "key": "name"]]], ["s"]),
        (["tags": ["$select": ["query": ["className": "Person", "where": ["age": ["$lt": 25]]], "key": "name"]]], []),
        (["s": ["$dontSelect": ["query": ["className": "Person", "where": [:]], "key": "name"]]], []),
        (["$or": [["owner": ["$inQuery": ["className": "Person", "where": ["age": 20]]]], ["b": true]]], ["-n"]),
        (["tags": ["$containedBy": ["apple", "Banana", "cherry"]]], ["-createdAt"]),
        (["loc": ["$nearSphere": geoPoint(10, 10), "$maxDistanceInKilometers": 2500]], []),
        (["loc": ["$nearSphere": geoPoint(0, 0)]], []),
        (["loc": ["$nearSphere": geoPoint(-5, 3), "$maxDistanceInMiles": 1500]], ["-n"]),
        (["loc": ["$nearSphere": geoPoint(0, 0), "$maxDistance": 0.3], "b": true], []),
        (["loc": ["$within": ["$box": [geoPoint(-10, -10), geoPoint(20, 25)]]]], ["objectId"]),
        (["loc": ["$geoWithin": ["$polygon": [geoPoint(-15, -15), geoPoint(15, -10), geoPoint(10, 20), geoPoint(-12, 12)]]]], []),
        (["loc": ["$geoWithin": ["$polygon": [[-15, -15], [15, -10], [10, 20]]]]], []),
        (["loc": ["$geoWithin": ["$centerSphere": [[2, 1], 0.25]]]], []),
        (["area": ["$geoIntersects": ["$point": geoPoint(-8, -7)]]], []),
        (["area": ["$geoIntersects": ["$point": geoPoint(14.5, 12.5)]]], []),
        (["loc": geoPoint(-18.25, -19.5)], []),
        (["area": ["__type": "Polygon", "coordinates": [[2, 0], [7, 0], [7, 5], [2, 5], [2, 0]]]], []),
        (["nums": ["$containedBy": [0, 1, 2]]], []),
        (["tags": ["$containedBy": .array([])]], []),
        (["objectId": ["$select": ["query": ["className": "Item", "where": ["n": ["$lt": 0]]], "key": "objectId"]]], []),
    ]

    /// The readers: master, anyone, user u1, and a member of the role admin.
    private static let readers: [[String]?] = [nil, ["*"], ["*", "u1"], ["*", "role:admin"]]

    @Test func everyQueryFindsTheSameObjectsInTheSameOrderOnBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for object in Self.people {
                    try await sqlite.insert(object, outbox: nil)
                    try await postgres.insert(object)
                }
                for object in Self.corpus {
                    let relations = try Self.likes(of: object)
                    try await sqlite.insert(object, relations: relations, outbox: nil, alongside: [])
                    try await postgres.insert(object, relations: relations)
                }
                var compared = 0
                for (constraints, order) in Self.queries {
                    for reader in Self.readers {
                        for (limit, skip) in [(100, 0), (3, 2)] {
                            let query = StorageQuery(
                                query: ParseQuery(Self.className, constraints: constraints, order: order, limit: limit, skip: skip),
                                readerIdentities: reader)
                            let expected = try await sqlite.find(query)
                            if reader == nil, limit == 100 {
                                #expect(!expected.isEmpty, "the corpus has objects for \(JSONWriter.string(.object(constraints))): an empty answer proves little")
                            }
                            let found = try await postgres.find(query)
                            #expect(
                                found.map(\.objectId) == expected.map(\.objectId),
                                "\(JSONWriter.string(.object(constraints))) order \(order) reader \(reader ?? ["master"]) limit \(limit) skip \(skip)")
                            #expect(found == expected, "the objects read back are the same")
                            compared += 1
                        }
                        let counted = StorageQuery(query: ParseQuery(Self.className, constraints: constraints), readerIdentities: reader)
                        #expect(try await postgres.count(counted) == (try await sqlite.count(counted)), "count \(constraints)")
                    }
                }
                #expect(compared == Self.queries.count * Self.readers.count * 2)
                for field in ["s", "n", "b", "tags", "nums", "when", "owner", "place", "place.city", "loc", "objectId", "createdAt", "missing"] {
                    for constraints: [String: ParseValue] in [[:], ["n": ["$gt": 0]], ["b": true], ["tags": "apple"]] {
                        let expected = try await sqlite.distinct(Self.className, field: field, constraints: constraints, budget: ReadBudget())
                        let found = try await postgres.distinct(Self.className, field: field, constraints: constraints, budget: ReadBudget())
                        #expect(Set(found) == Set(expected) && found.count == expected.count, "distinct \(field) where \(constraints)")
                    }
                }
            }
        }
    }

    @Test func aMalformedQueryGetsTheSameErrorFromBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { database, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(database, schema: schema)
                func code(_ find: (StorageQuery) async throws -> [ParseObject], _ constraints: [String: ParseValue]) async -> Int? {
                    do {
                        _ = try await find(StorageQuery(query: ParseQuery(Self.className, constraints: constraints), readerIdentities: nil))
                        return nil
                    } catch {
                        return (error as? ParseError)?.code
                    }
                }
                let malformed: [[String: ParseValue]] = [
                    ["$relatedTo": [:]], ["$nor": [["a": 1]]], ["s": ["$foo": 1]], ["$or": []], ["$and": [1]], ["s": ["$in": 1]],
                    ["s": ["$exists": "yes"]], ["s": ["$regex": 1]], ["s": ["$options": "i"]], ["s": ["$regex": "a", "$options": "q"]],
                    ["s": ["$lt": true]], ["objectId": ["$gt": 1]], ["loc": ["$nearSphere": 1]], ["loc": ["$within": ["$box": [1]]]],
                    ["s": ["$inQuery": 1]], ["bad key!": 1],
                ]
                for constraints in malformed {
                    let expected = await code(sqlite.find, constraints)
                    #expect(expected != nil, "SQLite refuses \(constraints)")
                    #expect(await code(postgres.find, constraints) == expected, "\(constraints)")
                }
            }
        }
    }

    @Test func aQueryPastTheBoundsIsRefusedWith102OnBothStores() async throws {
        var nested: [String: ParseValue] = ["n": 1]
        for _ in 0..<QueryBounds.maximumNesting { nested = ["$or": [.object(nested), ["n": 2]]] }
        let hostile: [[String: ParseValue]] = [
            ["$or": .array((0...QueryBounds.maximumBranches).map { ["n": .number(Double($0))] })],
            .init(uniqueKeysWithValues: (0...QueryBounds.maximumConditions).map { ("f\($0)", ParseValue.number(1)) }),
            ["n": ["$in": .array((0...QueryBounds.maximumValues).map { .number(Double($0)) })]],
            nested,
        ]
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for constraints in hostile {
                    let query = StorageQuery(query: ParseQuery(Self.className, constraints: constraints), readerIdentities: ["*"])
                    for (name, find) in [("sqlite", sqlite.find), ("postgres", postgres.find)] as [(String, (StorageQuery) async throws -> [ParseObject])] {
                        let error = await #expect(throws: ParseError.self, "\(name)") { try await find(query) }
                        #expect(error?.code == 102, "\(name)")
                    }
                }
            }
        }
    }

    @Test func aHostileFieldPathIsRefusedBeforeAnySQL() async throws {
        try await TemporaryPostgres.with { database, schema in
            let store = try await PostgresObjectStore(database, schema: schema)
            for path in ["a'}'; DROP TABLE x; --", "a,b", "a}", "{a"] {
                await #expect(throws: ParseError.self) {
                    try await store.find(StorageQuery(query: ParseQuery(Self.className, constraints: [path: 1]), readerIdentities: nil))
                }
            }
        }
    }
}
