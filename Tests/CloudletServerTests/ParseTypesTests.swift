import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

@Suite("Parse types: Date, Pointer, GeoPoint, Bytes, File, and the schema")
struct ParseTypesTests {
    static let date: ParseValue = ["__type": "Date", "iso": "2024-02-29T23:59:58.123Z"]
    static let pointer: ParseValue = ["__type": "Pointer", "className": "Authors", "objectId": "abcDEF1234"]
    static let geoPoint: ParseValue = ["__type": "GeoPoint", "latitude": 48.8584, "longitude": 2.2945]
    static let bytes: ParseValue = ["__type": "Bytes", "base64": "SGVsbG8sIHdvcmxkIQ=="]
    static let file: ParseValue = ["__type": "File", "name": "photo.jpg", "url": "https://files.example.com/photo.jpg"]

    /// `value`, or for ``file`` a `File` value of a file uploaded now: a `File` must name a stored file.
    static func stored(_ value: ParseValue, _ client: ParseTestClient) async throws -> ParseValue {
        guard value == file else { return value }
        let upload = try await client.upload("photo.jpg", [1, 2, 3], contentType: "image/jpeg")
        return ["__type": "File", "name": upload["name"] ?? .null, "url": upload["url"] ?? .null]
    }

    @Test("each special type is stored and read back as sent", arguments: [
        ("when", date), ("author", pointer), ("place", geoPoint), ("data", bytes), ("picture", file),
    ])
    func roundTrip(field: String, value: ParseValue) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let value = try await Self.stored(value, client)
            let created = try await client.post("/classes/Things", [field: value])
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(created["objectId"]?.stringValue)
            let fetched = try await client.get("/classes/Things/\(id)")
            #expect(fetched[field] == value)
            let found = try await client.get("/classes/Things")
            #expect(found["results"]?.arrayValue?.first?[field] == value)
            let updated = try await client.put("/classes/Things/\(id)", [field: value])
            #expect(updated.status == 200, "\(updated.body)")
        }
    }

    @Test("all special types together, also inside arrays and objects", arguments: TestStore.allCases)
    func nested(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let body: [String: ParseValue] = [
                "when": Self.date, "list": [Self.date, Self.pointer, Self.geoPoint],
                "info": ["file": try await Self.stored(Self.file, client), "bytes": Self.bytes],
            ]
            let id = try await Support.create(client, "Things", body)
            let fetched = try await client.get("/classes/Things/\(id)")
            for (key, value) in body { #expect(fetched[key] == value, "field \(key)") }
        }
    }

    @Test("malformed special types answer 111 and store nothing", arguments: [
        ["__type": "Date", "iso": "yesterday"],
        ["__type": "Date", "iso": "2024-13-01T00:00:00.000Z"],
        ["__type": "Date"],
        ["__type": "GeoPoint", "latitude": 100, "longitude": 0],
        ["__type": "GeoPoint", "latitude": 0, "longitude": 181],
        ["__type": "GeoPoint", "latitude": "1", "longitude": 0],
        ["__type": "Bytes", "base64": "not base64!!"],
        ["__type": "Bytes"],
        ["__type": "Pointer", "className": "Authors"],
        ["__type": "Pointer", "className": "1bad", "objectId": "abc"],
        ["__type": "File"],
        ["__type": "File", "name": "a.txt", "url": 3],
        ["__type": "Mystery", "value": 1],
    ] as [ParseValue])
    func invalid(value: ParseValue) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post("/classes/Things", ["bad": value, "good": "x"])
            Support.expectError(reply, status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Things") == 0)
        }
    }

    @Test("a malformed special type in an update answers 111 and changes nothing", arguments: TestStore.allCases)
    func invalidUpdate(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Things", ["place": Self.geoPoint, "name": "tower"])
            let reply = try await client.put(
                "/classes/Things/\(id)", ["place": ["__type": "GeoPoint", "latitude": 100, "longitude": 0], "name": "moved"])
            Support.expectError(reply, status: 400, code: 111)
            let fetched = try await client.get("/classes/Things/\(id)")
            #expect(fetched["place"] == Self.geoPoint)
            #expect(fetched["name"] == "tower")
        }
    }

    @Test("a field first saved as a number cannot then be saved as a string: 111", arguments: TestStore.allCases)
    func schemaMismatch(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Scores", ["value": 1])
            let create = try await client.post("/classes/Scores", ["value": "one"])
            Support.expectError(create, status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Scores") == 1)
            let update = try await client.put("/classes/Scores/\(id)", ["value": "one"])
            Support.expectError(update, status: 400, code: 111)
            #expect(try await client.get("/classes/Scores/\(id)")["value"] == 1)
            // Another number, and null, still fit.
            #expect(try await client.put("/classes/Scores/\(id)", ["value": 2]).status == 200)
            #expect(try await client.post("/classes/Scores", ["value": nil]).status == 201)
        }
    }

    @Test("the schema distinguishes special types: a Date field refuses a GeoPoint, a Pointer keeps its target class", arguments: TestStore.allCases)
    func schemaSpecialTypes(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Things", ["when": Self.date, "author": Self.pointer])
            Support.expectError(try await client.post("/classes/Things", ["when": Self.geoPoint]), status: 400, code: 111)
            Support.expectError(try await client.post("/classes/Things", ["when": "2024-01-01T00:00:00.000Z"]), status: 400, code: 111)
            Support.expectError(
                try await client.post("/classes/Things", ["author": .pointer(className: "Editors", objectId: "x1")]), status: 400,
                code: 111)
            #expect(try await Support.masterCount(client, "Things") == 1)
        }
    }

    @Test("a refused save records no field types: a new field in it may later take another type", arguments: TestStore.allCases)
    func refusedSaveRecordsNoSchema(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Scores", ["value": 1])
            // Refused for value; extra must not keep the type Number from this attempt.
            let refused = try await client.post("/classes/Scores", ["value": "one", "extra": 5, "more": 6])
            Support.expectError(refused, status: 400, code: 111)
            let later = try await client.post("/classes/Scores", ["extra": "text", "more": "text"])
            #expect(later.status == 201, "\(later.body)")
            #expect(try await Support.masterCount(client, "Scores") == 2)
        }
    }

    @Test("objects written in one transaction may share a new field, and must agree on its type")
    func newFieldsWithinOneTransaction() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = SQLiteObjectStore(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path))
        func item(_ id: String, _ fields: [String: ParseValue]) -> ParseObject {
            ParseObject(className: "Items", objectId: id, createdAt: Date(), updatedAt: Date(), fields: fields)
        }
        try await storage.insert(item("first", ["name": "a"]), outbox: nil)
        try await storage.insert(item("b", ["size": 1]), outbox: nil, alongside: [item("c", ["size": 2]), item("d", ["size": 3])])
        await #expect(throws: ParseError.self) {
            try await storage.insert(item("e", ["tag": 1]), outbox: nil, alongside: [item("f", ["tag": "one"])])
        }
        let stored = try await storage.find(StorageQuery(query: ParseQuery("Items"), readerIdentities: nil))
        #expect(Set(stored.compactMap(\.objectId)) == ["first", "b", "c", "d"])
    }

    @Test("schemas are per class: the same field name may have other types in other classes", arguments: TestStore.allCases)
    func schemaPerClass(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "A", ["value": 1])
            try await Support.create(client, "B", ["value": "one"])
            #expect(try await Support.masterCount(client, "A") == 1)
            #expect(try await Support.masterCount(client, "B") == 1)
        }
    }

    @Test("strings, numbers, Booleans, null and nested JSON round trip", arguments: TestStore.allCases)
    func plainJSON(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let body: [String: ParseValue] = [
                "text": "héllo \"quoted\" \\ 😀\n\t", "int": 42, "negative": -7, "fraction": 0.125, "big": 1e300,
                "yes": true, "no": false, "nothing": nil, "nested": ["a": [1, ["b": "c"]], "d": [:]], "empty": [],
            ]
            let id = try await Support.create(client, "Plain", body)
            let fetched = try await client.get("/classes/Plain/\(id)")
            for (key, value) in body { #expect(fetched[key] == value, "field \(key)") }
        }
    }
}
