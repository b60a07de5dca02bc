import Cloudlet
import CloudletTesting
import Testing

@Suite("The hook harness: geo queries and Polygons through a hook's store")
struct HarnessGeoTests {
    static let sfo = ParseCoordinate(latitude: 37.6189722, longitude: -122.3748889)

    /// A function that finds places by the geo call its `mode` names.
    private static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("places") { request in
            var query = ParseQuery("Places")
            switch request.params["mode"]?.stringValue ?? "" {
            case "km": query = query.whereKey("location", nearGeoPoint: sfo, maxDistanceKilometers: 3700)
            case "miles": query = query.whereKey("location", nearGeoPoint: sfo, maxDistanceMiles: 50)
            case "near": query = query.whereKey("location", nearGeoPoint: ParseCoordinate(latitude: 21, longitude: -158))
            case "within": query = query.whereKey("location", withinKilometers: 100, of: sfo)
            case "box":
                query = query.whereKey(
                    "location", withinGeoBoxFrom: ParseCoordinate(latitude: 37.5, longitude: -123), to: ParseCoordinate(latitude: 38.6, longitude: -121)
                ).order(by: "name")
            case "polygon":
                let corners = [(20.0, -160.0), (20.0, -150.0), (25.0, -150.0), (25.0, -160.0)]
                query = query.whereKey("location", withinPolygon: corners.map { ParseCoordinate(latitude: $0.0, longitude: $0.1) })
            default: query = ParseQuery("Areas").whereKey("boundary", polygonContains: ParseCoordinate(latitude: 0.5, longitude: 0.5))
            }
            return .array(try await request.store.find(query).map { $0["name"] ?? .null })
        }
        return hooks
    }

    @Test func theGeoCallsFindWhatParseFinds() async throws {
        try await Self.check(try HookHarness(registry: Self.hooks))
    }

    @Test func theyCrossTheWorkerWireIntact() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.hooks) { harness in try await Self.check(harness) }
    }

    private static func check(_ harness: HookHarness) async throws {
        for (name, latitude, longitude) in [("Sacramento", 38.52, -121.5), ("Honolulu", 21.35, -157.93), ("San Francisco", 37.75, -122.68)] {
            try await harness.create("Places", ["name": .string(name), "location": .geoPoint(latitude: latitude, longitude: longitude)])
        }
        let square = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)].map { ParseCoordinate(latitude: $0.0, longitude: $0.1) }
        let area = try await harness.create("Areas", ["name": "square", "boundary": .polygon(square)])
        let stored = try await harness.get("Areas", id: try #require(area.objectId))
        #expect(stored?["boundary"]?.polygonValue == square + [square[0]], "saved with its ring closed")

        #expect(try await harness.call("places", ["mode": "km"], as: .master) == ["San Francisco", "Sacramento"])
        #expect(try await harness.call("places", ["mode": "miles"], as: .master) == ["San Francisco"])
        #expect(try await harness.call("places", ["mode": "near"], as: .master) == ["Honolulu", "San Francisco", "Sacramento"])
        #expect(try await harness.call("places", ["mode": "within"], as: .master) == ["San Francisco"])
        #expect(try await harness.call("places", ["mode": "box"], as: .master) == ["Sacramento", "San Francisco"])
        #expect(try await harness.call("places", ["mode": "polygon"], as: .master) == ["Honolulu"])
        #expect(try await harness.call("places", ["mode": "contains"], as: .master) == ["square"])
    }
}
