import Cloudlet

/// The operands of Parse's geo operators as every store reads them: the points and the
/// `$maxDistance…` radii, with the errors Parse answers for malformed ones (107).
package enum GeoOperands {
    /// The `$maxDistance…` operators, each with the radius of Earth its distance is in (1 for radians).
    package static let maximumDistances: [String: Double] = [
        "$maxDistance": 1, "$maxDistanceInRadians": 1,
        "$maxDistanceInKilometers": ParseCoordinate.earthRadiusKilometers,
        "$maxDistanceInMiles": ParseCoordinate.earthRadiusMiles,
    ]

    /// The smallest of the `$maxDistance…` among `operators`, in radians; nil if there is none.
    package static func maximumRadians(_ operators: [String: ParseValue]) throws -> Double? {
        try operators.compactMap { op, value -> Double? in
            guard let radius = maximumDistances[op] else { return nil }
            guard let distance = value.doubleValue, distance.isFinite, distance >= 0 else {
                throw ParseError.invalidJSON("bad \(op) value; it should be a number, 0 or more")
            }
            return distance / radius
        }.min()
    }

    /// Throws 102 when `path` names `objectId`, `createdAt` or `updatedAt`: the geo operator `op`
    /// tests fields.
    package static func checkField(_ path: String, _ op: String) throws {
        guard QueryTerms.column(path) == nil else { throw ParseError.invalidQuery("\(op) needs a GeoPoint or Polygon field, not \(path)") }
    }

    /// A point of an operand: a `GeoPoint`, or (where `acceptsPair`) a `[longitude, latitude]` pair;
    /// finite and in range.
    package static func point(_ value: ParseValue, _ op: String, acceptsPair: Bool) throws -> ParseCoordinate {
        var point = value.geoPointValue
        if acceptsPair, let pair = value.arrayValue, pair.count == 2, let longitude = pair[0].doubleValue, let latitude = pair[1].doubleValue {
            point = ParseCoordinate(latitude: latitude, longitude: longitude)
        }
        guard let point else { throw ParseError.invalidJSON("bad \(op) value; it should be a GeoPoint") }
        guard point.isValid else {
            throw ParseError.invalidJSON("bad \(op) value; latitude must be in -90...90 and longitude in -180...180")
        }
        return point
    }
}

/// The region of a `$within` (`$box`), `$geoWithin` (`$polygon`, `$centerSphere`) or
/// `$geoIntersects` (`$point`), read as every store reads it, with Parse's errors (107) for
/// malformed operands.
package enum GeoRegion: Sendable {
    /// A box, edges included.
    case box(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>)
    /// A polygon in the plane of longitude and latitude, three to ``ParsePolygon/maximumPoints`` points.
    case polygon([ParseCoordinate])
    /// The points within `radians` of `center` on the sphere.
    case circle(center: ParseCoordinate, radians: Double)
    /// The polygons that hold a point.
    case containing(ParseCoordinate)

    /// The region of the operator `op` with `operand`.
    package init(_ op: String, _ operand: ParseValue) throws {
        let members = operand.objectValue ?? [:]
        switch op {
        case "$within":
            guard let corners = members["$box"]?.arrayValue, corners.count == 2 else {
                throw ParseError.invalidJSON("bad $within value; $box should be an array of two GeoPoints")
            }
            let (a, b) = (try GeoOperands.point(corners[0], "$box", acceptsPair: false), try GeoOperands.point(corners[1], "$box", acceptsPair: false))
            self = .box(
                latitudes: min(a.latitude, b.latitude)...max(a.latitude, b.latitude), longitudes: min(a.longitude, b.longitude)...max(a.longitude, b.longitude))
        case "$geoWithin":
            if let polygon = members["$polygon"] {
                self = .polygon(try Self.polygon(polygon))
                return
            }
            guard let circle = members["$centerSphere"] else { throw ParseError.invalidJSON("bad $geoWithin value; it needs $polygon or $centerSphere") }
            guard let parts = circle.arrayValue, parts.count == 2 else {
                throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance")
            }
            let center = try GeoOperands.point(parts[0], "$centerSphere", acceptsPair: true)
            guard let radians = parts[1].doubleValue, radians.isFinite, radians >= 0 else {
                throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere distance invalid")
            }
            self = .circle(center: center, radians: radians)
        default:
            guard let point = members["$point"], point.parseType == "GeoPoint" else {
                throw ParseError.invalidJSON("bad $geoIntersect value; $point should be GeoPoint")
            }
            self = .containing(try GeoOperands.point(point, "$point", acceptsPair: false))
        }
    }

    /// `$polygon`: three to ``ParsePolygon/maximumPoints`` points, or a `Polygon` whose coordinates
    /// are read as `[longitude, latitude]` pairs, as Parse Server reads them here.
    private static func polygon(_ polygon: ParseValue) throws -> [ParseCoordinate] {
        guard let members = polygon.parseType == "Polygon" ? polygon["coordinates"]?.arrayValue : polygon.arrayValue else {
            throw ParseError.invalidJSON("bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's")
        }
        guard members.count >= 3 else { throw ParseError.invalidJSON("bad $geoWithin value; $polygon should contain at least 3 GeoPoints") }
        guard members.count <= ParsePolygon.maximumPoints else {
            throw ParseError.invalidQuery("$polygon may have at most \(ParsePolygon.maximumPoints) points")
        }
        return try members.map { try GeoOperands.point($0, "$polygon", acceptsPair: true) }
    }
}

extension GeoRegion {
    /// Whether `value` lies in the region, as the stores test a field: a GeoPoint in the box (edges
    /// included), the polygon or the circle; for ``containing(_:)``, a Polygon that holds the point.
    package func holds(_ value: ParseValue) -> Bool {
        if case .containing(let point) = self {
            guard value.parseType == "Polygon", let ring = value.polygonValue, (3...ParsePolygon.maximumPoints + 1).contains(ring.count) else {
                return false
            }
            return Self.ring(ring, contains: point)
        }
        guard let point = value.geoPointValue else { return false }
        switch self {
        case .box(let latitudes, let longitudes): return latitudes.contains(point.latitude) && longitudes.contains(point.longitude)
        case .polygon(let ring): return Self.ring(ring, contains: point)
        case .circle(let center, let radians): return point.radians(to: center) <= radians
        case .containing: return false
        }
    }

    /// Whether `point` lies inside `ring` (crossing number) or on one of its edges, in the plane of
    /// longitude (x) and latitude (y), as Parse Server on PostgreSQL tests it.
    package static func ring(_ ring: [ParseCoordinate], contains point: ParseCoordinate) -> Bool {
        let (x, y) = (point.longitude, point.latitude)
        var inside = false
        var previous = ring[ring.count - 1]
        for corner in ring {
            let (a, b) = ((x: corner.longitude, y: corner.latitude), (x: previous.longitude, y: previous.latitude))
            previous = corner
            let cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
            if abs(cross) <= 1e-9, (min(a.x, b.x)...max(a.x, b.x)).contains(x), (min(a.y, b.y)...max(a.y, b.y)).contains(y) {
                return true
            }
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x {
                inside.toggle()
            }
        }
        return inside
    }
}
