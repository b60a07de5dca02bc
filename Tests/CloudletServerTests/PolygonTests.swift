import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("The Polygon type and $geoIntersects")
struct PolygonTests {
    private static func polygon(_ pairs: [(Double, Double)]) -> ParseValue {
        ["__type": "Polygon", "coordinates": .array(pairs.map { [.number($0.0), .number($0.1)] })]
    }

    private static let unitSquare: [(Double, Double)] = [(0, 0), (0, 1), (1, 1), (1, 0)]

    @Test("a Polygon is saved with its ring closed, returned as Parse encodes it, and keeps its schema type", arguments: TestStore.allCases)
    func roundTrip(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let open = try await Support.create(client, "Areas", ["boundary": Self.polygon(Self.unitSquare)])
            let fetched = try await client.get("/classes/Areas/\(open)")
            #expect(fetched["boundary"] == Self.polygon(Self.unitSquare + [(0, 0)]))
            #expect(fetched["boundary"]?.polygonValue?.count == 5)
            let closed = try await Support.create(client, "Areas", ["boundary": Self.polygon(Self.unitSquare + [(0, 0)])])
            #expect(try await client.get("/classes/Areas/\(closed)")["boundary"] == Self.polygon(Self.unitSquare + [(0, 0)]))
            let moved: [(Double, Double)] = [(2, 2), (2, 3), (3, 3), (3, 2)]
            #expect(try await client.put("/classes/Areas/\(open)", ["boundary": Self.polygon(moved)]).status == 200)
            #expect(try await client.get("/classes/Areas/\(open)")["boundary"] == Self.polygon(moved + [(2, 2)]))
            let wrongType = try await client.post("/classes/Areas", ["boundary": "a string"])
            Support.expectError(wrongType, status: 400, code: 111)
            let point = try await client.post("/classes/Areas", ["boundary": .geoPoint(latitude: 1, longitude: 1)])
            Support.expectError(point, status: 400, code: 111)
            let string = try await client.post("/classes/Areas", ["name": Self.polygon(Self.unitSquare)])
            #expect(string.status == 201, "a new field takes the Polygon type: \(string.body)")
        }
    }

    @Test("equality with a Polygon finds it open or closed, and equality with a GeoPoint finds that point", arguments: TestStore.allCases)
    func equality(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Areas", ["name": "square", "boundary": Self.polygon(Self.unitSquare), "center": .geoPoint(latitude: 0.5, longitude: 0.5)])
            try await Support.create(client, "Areas", ["name": "other", "boundary": Self.polygon([(2, 2), (2, 3), (3, 3)]), "center": .geoPoint(latitude: 0, longitude: 0)])
            func names(_ constraints: ParseValue) async throws -> [String] {
                try await GeoQueryTests.names(client, constraints, order: "name", className: "Areas")
            }
            #expect(try await names(["boundary": Self.polygon(Self.unitSquare)]) == ["square"])
            #expect(try await names(["boundary": Self.polygon(Self.unitSquare + [(0, 0)])]) == ["square"])
            #expect(try await names(["boundary": Self.polygon([(0, 0), (0, 1), (1, 1)])]) == [])
            #expect(try await names(["center": .geoPoint(latitude: 0.5, longitude: 0.5)]) == ["square"])
            #expect(try await names(["center": ["$ne": .geoPoint(latitude: 0, longitude: 0)]]) == ["square"])
            let outOfRange = try await client.get("/classes/Areas", query: ["where": ["center": .geoPoint(latitude: 0, longitude: 200)]])
            Support.expectError(outOfRange, status: 400, code: 107)
        }
    }

    @Test("a Polygon is checked as Parse checks it: at least 3 different points, numbers in range, at most the bound", arguments: TestStore.allCases)
    func validation(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            func save(_ value: ParseValue) async throws -> ParseTestClient.Reply {
                try await client.post("/classes/Areas", ["boundary": value])
            }
            Support.expectError(try await save(Self.polygon([(0, 0)])), status: 400, code: 107)
            Support.expectError(try await save(Self.polygon([(0, 0), (0, 1), (0, 0)])), status: 400, code: 107)
            Support.expectError(try await save(["__type": "Polygon", "coordinates": [["foo", "bar"], [0, 1], [1, 0], [1, 1]]]), status: 400, code: 111)
            Support.expectError(try await save(Self.polygon([(91, 0), (0, 1), (1, 1)])), status: 400, code: 111)
            Support.expectError(try await save(Self.polygon([(0, 0), (0, 181), (1, 1)])), status: 400, code: 111)
            Support.expectError(try await save(["__type": "Polygon"]), status: 400, code: 111)
            Support.expectError(try await save(["__type": "Polygon", "coordinates": [[0, 0, 0], [0, 1], [1, 1]]]), status: 400, code: 111)
            let tooMany = (0...1_000).map { (Double($0) / 100, Double($0 % 2)) }
            Support.expectError(try await save(Self.polygon(tooMany)), status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Areas") == 0)
        }
    }

    @Test("$geoIntersects finds the Polygons that contain a point, edges included", arguments: TestStore.allCases)
    func geoIntersects(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let shapes: [(String, [(Double, Double)])] = [
                ("small", Self.unitSquare), ("large", [(0, 0), (0, 2), (2, 2), (2, 0)]), ("far", [(10, 10), (10, 15), (15, 15), (15, 10)]),
                ("detroit", [(42.631655189280224, -83.78406753121705), (42.633047793854814, -83.75333640366955),
                             (42.61625254348911, -83.75149921669944), (42.61526926650296, -83.78161794858735)]),
            ]
            for (name, pairs) in shapes { try await Support.create(client, "Areas", ["name": .string(name), "boundary": Self.polygon(pairs)]) }
            try await Support.create(client, "Areas", ["name": "pointOnly", "boundary2": .geoPoint(latitude: 0.5, longitude: 0.5)])
            func containing(_ latitude: Double, _ longitude: Double) async throws -> [String] {
                let point = ParseValue.geoPoint(latitude: latitude, longitude: longitude)
                return try await GeoQueryTests.names(client, ["boundary": ["$geoIntersects": ["$point": point]]], order: "name", className: "Areas")
            }
            #expect(try await containing(0.5, 0.5) == ["large", "small"])
            #expect(try await containing(1, 0.5) == ["large", "small"], "on an edge")
            #expect(try await containing(1.5, 1.5) == ["large"])
            #expect(try await containing(42.624599, -83.770162) == ["detroit"])
            #expect(try await containing(-5, -5) == [])
        }
    }
}
