import Cloudlet
import Foundation
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Geo queries under hostile input: Parse's errors, never a 5xx, the data intact")
struct GeoBoundsTests {
    private static let point: ParseValue = .geoPoint(latitude: 1, longitude: 1)
    private static let square: ParseValue = [.geoPoint(latitude: 0, longitude: 0), .geoPoint(latitude: 0, longitude: 10), .geoPoint(latitude: 10, longitude: 10)]

    /// Malformed operands and the code Parse answers each with.
    private static let refused: [(ParseValue, Int)] = [
        (["$nearSphere": [1, 1]], 107),
        (["$nearSphere": ["__type": "GeoPoint", "latitude": 91, "longitude": 0]], 107),
        (["$nearSphere": ["__type": "GeoPoint", "latitude": "1", "longitude": 0]], 107),
        (["$nearSphere": Self.point, "$maxDistance": "far"], 107),
        (["$nearSphere": Self.point, "$maxDistanceInKilometers": -1], 107),
        (["$maxDistance": 1], 102),
        (["$within": ["$box": [Self.point]]], 107),
        (["$within": ["$box": [Self.point, ["__type": "GeoPoint", "latitude": 0, "longitude": 181]]]], 107),
        (["$within": 1], 107),
        (["$geoWithin": ["$polygon": 1234]], 107),
        (["$geoWithin": ["$polygon": [[:]]]], 107),
        (["$geoWithin": ["$polygon": []]], 107),
        (["$geoWithin": ["$polygon": [Self.point, Self.point]]], 107),
        (["$geoWithin": ["$polygon": ["__type": "Polygon", "coordinates": [[0, 0], [10, 0]]]]], 107),
        (["$geoWithin": ["$polygon": ["__type": "Polygon", "coordinates": [[0, 0], [181, 0], [0, 10]]]]], 107),
        (["$geoWithin": ["$polygon": .array(Array(repeating: square.arrayValue![1], count: 1_001))]], 102),
        (["$geoWithin": ["$centerSphere": [Self.point]]], 107),
        (["$geoWithin": ["$centerSphere": [Self.point, -1]]], 107),
        (["$geoWithin": ["$centerSphere": [[0, 100], 1]]], 107),
        (["$geoWithin": ["$centerSphere": ["x", 1]]], 107),
        (["$geoWithin": [:]], 107),
        (["$geoIntersects": ["$point": []]], 107),
        (["$geoIntersects": ["$point": ["__type": "GeoPoint", "latitude": 181, "longitude": 181]]], 107),
    ]

    @Test("each malformed geo operand answers Parse's code with a 400, and nothing is lost", arguments: TestStore.allCases)
    func malformedOperands(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Places", ["location": Self.point])
            for (operators, code) in Self.refused {
                let reply = try await client.get("/classes/Places", query: ["where": ["location": operators]])
                Support.expectError(reply, status: 400, code: code)
            }
            let onObjectId = try await client.get("/classes/Places", query: ["where": ["objectId": ["$within": ["$box": [Self.point, Self.point]]]]])
            Support.expectError(onObjectId, status: 400, code: 102)
            let nearCreatedAt = try await client.get("/classes/Places", query: ["where": ["createdAt": ["$nearSphere": Self.point]]])
            Support.expectError(nearCreatedAt, status: 400, code: 102)
            #expect(try await Support.masterCount(client, "Places") == 1)
        }
    }

    @Test("the largest polygon a query may give is served; geo conditions count against the query's bounds", arguments: TestStore.allCases)
    func bounds(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Places", ["name": "p", "location": Self.point])
            let ring = (0..<1_000).map { index -> ParseValue in
                let angle = Double(index) / 1_000 * 2 * Double.pi
                return .geoPoint(latitude: 5 * sin(angle), longitude: 5 * cos(angle))
            }
            #expect(try await GeoQueryTests.names(client, ["location": ["$geoWithin": ["$polygon": .array(ring)]]]) == ["p"])
            let branches = ParseValue.array((0..<501).map { _ in ["location": ["$within": ["$box": [Self.point, Self.point]]]] })
            Support.expectError(try await client.get("/classes/Places", query: ["where": ["$or": branches]]), status: 400, code: 102)
        }
    }
}
