import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Geo queries: $nearSphere, $maxDistance…, $within, $geoWithin")
struct GeoQueryTests {
    static let sfo = ParseCoordinate(latitude: 37.6189722, longitude: -122.3748889)

    /// Sacramento, Honolulu and San Francisco, as in Parse Server's own tests, and a place with no location.
    private static func seedCities(_ client: ParseTestClient) async throws {
        let cities: [(String, Double, Double)] = [("Sacramento", 38.52, -121.5), ("Honolulu", 21.35, -157.93), ("San Francisco", 37.75, -122.68)]
        for (name, latitude, longitude) in cities {
            try await Support.create(client, "Places", ["name": .string(name), "location": .geoPoint(latitude: latitude, longitude: longitude)])
        }
        try await Support.create(client, "Places", ["name": "Nowhere"])
    }

    static func names(
        _ client: ParseTestClient, _ constraints: ParseValue, order: String? = nil, className: String = "Places",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        var query: [String: ParseValue] = ["where": constraints]
        if let order { query["order"] = .string(order) }
        let reply = try await client.get("/classes/\(className)", query: query)
        #expect(reply.status == 200, "where \(constraints): \(reply.body)", sourceLocation: sourceLocation)
        return Support.values(reply, "name").compactMap(\.stringValue)
    }

    static func near(_ point: ParseCoordinate, _ op: String? = nil, _ distance: Double = 0) -> ParseValue {
        var operators: [String: ParseValue] = ["$nearSphere": .geoPoint(latitude: point.latitude, longitude: point.longitude)]
        if let op { operators[op] = .number(distance) }
        return ["location": .object(operators)]
    }

    @Test("haversine distances match known ones: Paris to London, SFO to Honolulu")
    func knownDistances() {
        let paris = ParseCoordinate(latitude: 48.8566, longitude: 2.3522)
        let london = ParseCoordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.radians(to: london) * ParseCoordinate.earthRadiusKilometers - 343.6) < 1)
        let honolulu = ParseCoordinate(latitude: 21.35, longitude: -157.93)
        #expect(abs(Self.sfo.radians(to: honolulu) * ParseCoordinate.earthRadiusKilometers - 3850) < 30)
        #expect(paris.radians(to: paris) == 0)
    }

    @Test("$nearSphere with $maxDistanceInKilometers and …InMiles finds the cities within, nearest first", arguments: TestStore.allCases)
    func nearSphereKilometersMiles(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seedCities(client)
            let km = "$maxDistanceInKilometers", miles = "$maxDistanceInMiles"
            #expect(try await Self.names(client, Self.near(Self.sfo, km, 4800)) == ["San Francisco", "Sacramento", "Honolulu"])
            #expect(try await Self.names(client, Self.near(Self.sfo, km, 3700)) == ["San Francisco", "Sacramento"])
            #expect(try await Self.names(client, Self.near(Self.sfo, km, 100)) == ["San Francisco"])
            #expect(try await Self.names(client, Self.near(Self.sfo, km, 10)) == [])
            #expect(try await Self.names(client, Self.near(Self.sfo, miles, 2600)) == ["San Francisco", "Sacramento", "Honolulu"])
            #expect(try await Self.names(client, Self.near(Self.sfo, miles, 2200)) == ["San Francisco", "Sacramento"])
            #expect(try await Self.names(client, Self.near(Self.sfo, miles, 50)) == ["San Francisco"])
        }
    }

    @Test("$nearSphere with $maxDistance in radians; without one it finds every GeoPoint, nearest first", arguments: TestStore.allCases)
    func nearSphereRadians(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for index in 0..<3 {
                try await Support.create(client, "Places", ["name": .string("p\(index)"), "location": .geoPoint(latitude: 0, longitude: Double(index) * 45)])
            }
            try await Support.create(client, "Places", ["name": "Nowhere"])
            let origin = ParseCoordinate(latitude: 1, longitude: -1)
            #expect(try await Self.names(client, Self.near(origin, "$maxDistance", 3.14)) == ["p0", "p1", "p2"])
            #expect(try await Self.names(client, Self.near(origin, "$maxDistanceInRadians", 3.14 * 0.5)) == ["p0", "p1"])
            #expect(try await Self.names(client, Self.near(origin, "$maxDistance", 3.14 * 0.25)) == ["p0"])
            let far = ParseCoordinate(latitude: 0, longitude: 100)
            #expect(try await Self.names(client, Self.near(far)) == ["p2", "p1", "p0"])
            #expect(try await Self.names(client, Self.near(far), order: "name") == ["p0", "p1", "p2"], "an order given comes first")
            let count = try await client.get("/classes/Places", query: ["where": Self.near(origin, "$maxDistance", 0.5), "count": 1, "limit": 0])
            #expect(count["count"] == 1)
        }
    }

    @Test("$within $box finds GeoPoints between two corners, edges included, corners in either order", arguments: TestStore.allCases)
    func box(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seedCities(client)
            let southwest: ParseValue = .geoPoint(latitude: 37.5, longitude: -123)
            let northeast: ParseValue = .geoPoint(latitude: 38.52, longitude: -121)
            let bay = try await Self.names(client, ["location": ["$within": ["$box": [southwest, northeast]]]], order: "name")
            #expect(bay == ["Sacramento", "San Francisco"])
            let swapped = try await Self.names(client, ["location": ["$within": ["$box": [northeast, southwest]]]], order: "name")
            #expect(swapped == bay)
            let small: ParseValue = ["$box": [.geoPoint(latitude: 37.7, longitude: -122.7), .geoPoint(latitude: 37.8, longitude: -122.6)]]
            #expect(try await Self.names(client, ["location": ["$within": small]]) == ["San Francisco"])
        }
    }

    @Test("$geoWithin $centerSphere takes [longitude, latitude] or a GeoPoint and a radius in radians", arguments: TestStore.allCases)
    func centerSphere(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seedCities(client)
            let pair: ParseValue = [.number(Self.sfo.longitude), .number(Self.sfo.latitude)]
            let hundredKilometers = ParseValue.number(100 / ParseCoordinate.earthRadiusKilometers)
            #expect(try await Self.names(client, ["location": ["$geoWithin": ["$centerSphere": [pair, hundredKilometers]]]]) == ["San Francisco"])
            let point = ParseValue.geoPoint(latitude: Self.sfo.latitude, longitude: Self.sfo.longitude)
            let wide = ParseValue.number(3700 / ParseCoordinate.earthRadiusKilometers)
            let found = try await Self.names(client, ["location": ["$geoWithin": ["$centerSphere": [point, wide]]]], order: "name")
            #expect(found == ["Sacramento", "San Francisco"])
        }
    }

    @Test("$geoWithin $polygon: GeoPoints, [longitude, latitude] pairs or a Polygon; edges included; concave shapes", arguments: TestStore.allCases)
    func polygon(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for (name, latitude, longitude) in [("in", 1.5, 1.5), ("on", 10.0, 10.0), ("out", 20.0, 20.0), ("notch", 8.0, 8.0)] {
                try await Support.create(client, "Places", ["name": .string(name), "location": .geoPoint(latitude: latitude, longitude: longitude)])
            }
            let square: [(Double, Double)] = [(0, 0), (0, 10), (10, 10), (10, 0)]
            let geoPoints = ParseValue.array(square.map { .geoPoint(latitude: $0.0, longitude: $0.1) })
            #expect(try await Self.names(client, ["location": ["$geoWithin": ["$polygon": geoPoints]]], order: "name") == ["in", "notch", "on"])
            let pairs = ParseValue.array(square.map { [.number($0.1), .number($0.0)] })
            #expect(try await Self.names(client, ["location": ["$geoWithin": ["$polygon": pairs]]], order: "name") == ["in", "notch", "on"])
            let object: ParseValue = ["__type": "Polygon", "coordinates": pairs]
            #expect(try await Self.names(client, ["location": ["$geoWithin": ["$polygon": object]]], order: "name") == ["in", "notch", "on"])
            // An L: the square without its upper-right quarter, which holds "notch" (inside the L's bounding box).
            let ell: [(Double, Double)] = [(0, 0), (0, 10), (5, 10), (5, 5), (10, 5), (10, 0)]
            let ellPoints = ParseValue.array(ell.map { .geoPoint(latitude: $0.0, longitude: $0.1) })
            #expect(try await Self.names(client, ["location": ["$geoWithin": ["$polygon": ellPoints]]]) == ["in"])
        }
    }
}
