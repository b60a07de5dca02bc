import Cloudlet
import CloudletRuntime
import Foundation
import GRDB
import Synchronization

/// The SQL functions behind Parse's geo queries, registered on every connection. Both are pure
/// and bounded: a distance is a few floating-point operations, and a polygon test reads at most
/// ``ParsePolygon/maximumPoints`` points (one more for a closed ring); past that it is false.
enum SQLiteGeo {
    static let functions = [distance, polygonContains]

    /// `cloudlet_geo_distance(latitude, longitude, latitude, longitude)`: the great-circle distance
    /// between two points in radians; NULL when an argument is not a number.
    static let distance = DatabaseFunction("cloudlet_geo_distance", argumentCount: 4, pure: true) { values in
        let numbers = values.compactMap { Double.fromDatabaseValue($0) }
        guard numbers.count == 4 else { return nil }
        let from = ParseCoordinate(latitude: numbers[0], longitude: numbers[1])
        return from.radians(to: ParseCoordinate(latitude: numbers[2], longitude: numbers[3]))
    }

    /// `cloudlet_polygon_contains(coordinates, latitude, longitude)`: whether the point lies inside
    /// or on the edge of the polygon whose JSON `coordinates` are `[latitude, longitude]` pairs, in
    /// the plane of longitude and latitude, as Parse Server on PostgreSQL tests it.
    static let polygonContains = DatabaseFunction("cloudlet_polygon_contains", argumentCount: 3, pure: true) { values in
        guard let json = String.fromDatabaseValue(values[0]), let latitude = Double.fromDatabaseValue(values[1]),
            let longitude = Double.fromDatabaseValue(values[2]), let ring = ring(json)
        else { return false }
        return GeoRegion.ring(ring, contains: ParseCoordinate(latitude: latitude, longitude: longitude))
    }

    /// The points of a JSON array of `[latitude, longitude]` pairs, read as the numbers in it in
    /// order; nil when they are not pairs or too many. The last text read is kept with its points,
    /// since a query's own polygon is the same text on every row.
    private static func ring(_ json: String) -> [ParseCoordinate]? {
        if let last = lastRing.withLock({ $0 }), last.json == json { return last.ring }
        let limit = 2 * (ParsePolygon.maximumPoints + 1)
        var numbers: [Double] = []
        let complete = json.withCString { text -> Bool in
            var cursor = text
            while cursor.pointee != 0 {
                let byte = UInt8(bitPattern: cursor.pointee)
                guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    cursor += 1
                    continue
                }
                var end: UnsafeMutablePointer<CChar>?
                let number = strtod(cursor, &end)
                guard let end, end > cursor, numbers.count < limit else { return false }
                numbers.append(number)
                cursor = UnsafePointer(end)
            }
            return true
        }
        guard complete, numbers.count >= 6, numbers.count.isMultiple(of: 2) else { return nil }
        let ring = stride(from: 0, to: numbers.count, by: 2).map { ParseCoordinate(latitude: numbers[$0], longitude: numbers[$0 + 1]) }
        lastRing.withLock { $0 = (json, ring) }
        return ring
    }

    private static let lastRing = Mutex<(json: String, ring: [ParseCoordinate])?>(nil)
}
