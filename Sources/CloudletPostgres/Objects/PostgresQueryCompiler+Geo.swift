import Cloudlet
import CloudletRuntime

/// Parse's geo operators in plain SQL, as the SQLite store reads them: a `GeoPoint` field tested
/// by its great-circle distance (the haversine formula, in radians) or its latitude and longitude (a
/// box; a polygon in the plane of longitude and latitude, through PostgreSQL's `polygon @> point`,
/// as Parse Server on PostgreSQL tests it); a `Polygon` field through the same operator. Malformed
/// operands answer 107, as Parse answers them.
extension PostgresQueryCompiler {
    /// `$nearSphere`, with the `$maxDistance…` among `operators` if there is one: the field is a
    /// GeoPoint within that distance of the point. The query's first `$nearSphere` outside `$or`,
    /// `$and` and inner queries also orders the results, nearest first, after any order the query gives.
    mutating func nearSphere(_ field: PostgresField, _ operand: ParseValue, _ operators: [String: ParseValue], depth: Int) throws -> String {
        try Self.checkGeoField(field, "$nearSphere")
        let center = try GeoOperands.point(operand, "$nearSphere", acceptsPair: false)
        let radians = try GeoOperands.maximumRadians(operators)
        if depth == 0, distanceOrder == nil { distanceOrder = distance(field, from: center) }
        let isGeoPoint = Self.isType(field, "GeoPoint")
        guard let radians else { return isGeoPoint }
        return "(\(isGeoPoint) AND \(distance(field, from: center)) <= \(bind(radians)))"
    }

    /// `$within` (`$box`), `$geoWithin` (`$polygon`, `$centerSphere`) or `$geoIntersects` (`$point`).
    mutating func geoClause(_ field: PostgresField, _ op: String, _ operand: ParseValue) throws -> String {
        try Self.checkGeoField(field, op)
        let members = operand.objectValue ?? [:]
        switch op {
        case "$within":
            guard let corners = members["$box"]?.arrayValue, corners.count == 2 else {
                throw ParseError.invalidJSON("bad $within value; $box should be an array of two GeoPoints")
            }
            let (a, b) = (try GeoOperands.point(corners[0], "$box", acceptsPair: false), try GeoOperands.point(corners[1], "$box", acceptsPair: false))
            return inBox(
                field, latitudes: min(a.latitude, b.latitude)...max(a.latitude, b.latitude),
                longitudes: min(a.longitude, b.longitude)...max(a.longitude, b.longitude))
        case "$geoWithin":
            if let polygon = members["$polygon"] { return try withinPolygon(field, polygon) }
            guard let circle = members["$centerSphere"] else {
                throw ParseError.invalidJSON("bad $geoWithin value; it needs $polygon or $centerSphere")
            }
            return try withinCircle(field, circle)
        default:
            guard let point = members["$point"], point.parseType == "GeoPoint" else {
                throw ParseError.invalidJSON("bad $geoIntersect value; $point should be GeoPoint")
            }
            let center = try GeoOperands.point(point, "$point", acceptsPair: false)
            let path = field.value
            // The stored ring's `[latitude, longitude]` pairs as a polygon in the plane of longitude and latitude.
            let ring = """
                (SELECT ('(' || string_agg('(' || (pair ->> 1) || ',' || (pair ->> 0) || ')', ',' ORDER BY n) || ')')::polygon \
                FROM jsonb_array_elements(\(path) -> 'coordinates') WITH ORDINALITY AS corner (pair, n))
                """
            return "(\(Self.isType(field, "Polygon")) AND \(ring) @> point(\(bind(center.longitude)), \(bind(center.latitude))))"
        }
    }

    /// Equality with a GeoPoint (the same latitude and longitude) or a Polygon (the same ring, closed
    /// as it is stored); nil for other values.
    mutating func geoEquality(_ field: PostgresField, _ value: ParseValue) throws -> String? {
        let path = field.value
        switch value.parseType {
        case "GeoPoint":
            let point = try GeoOperands.point(value, "GeoPoint", acceptsPair: false)
            return "(\(Self.isType(field, "GeoPoint")) AND (\(path) ->> 'latitude')::float8 = \(bind(point.latitude)) "
                + "AND (\(path) ->> 'longitude')::float8 = \(bind(point.longitude)))"
        case "Polygon":
            _ = try ParsePolygon.validated(value, field: field.path)
            return "(\(Self.isType(field, "Polygon")) AND \(path) -> 'coordinates' = \(bindJSON(ParsePolygon.closed(value)["coordinates"]!)))"
        default:
            return nil
        }
    }

    /// `$centerSphere`: `[point, radius in radians]`.
    private mutating func withinCircle(_ field: PostgresField, _ circle: ParseValue) throws -> String {
        guard let parts = circle.arrayValue, parts.count == 2 else {
            throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance")
        }
        let center = try GeoOperands.point(parts[0], "$centerSphere", acceptsPair: true)
        guard let radians = parts[1].doubleValue, radians.isFinite, radians >= 0 else {
            throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere distance invalid")
        }
        return "(\(Self.isType(field, "GeoPoint")) AND \(distance(field, from: center)) <= \(bind(radians)))"
    }

    /// `$polygon`: three to ``ParsePolygon/maximumPoints`` points, or a `Polygon` whose coordinates
    /// are read as `[longitude, latitude]` pairs, as Parse Server reads them here.
    private mutating func withinPolygon(_ field: PostgresField, _ polygon: ParseValue) throws -> String {
        guard let members = polygon.parseType == "Polygon" ? polygon["coordinates"]?.arrayValue : polygon.arrayValue else {
            throw ParseError.invalidJSON("bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's")
        }
        guard members.count >= 3 else { throw ParseError.invalidJSON("bad $geoWithin value; $polygon should contain at least 3 GeoPoints") }
        guard members.count <= ParsePolygon.maximumPoints else {
            throw ParseError.invalidQuery("$polygon may have at most \(ParsePolygon.maximumPoints) points")
        }
        let points = try members.map { try GeoOperands.point($0, "$polygon", acceptsPair: true) }
        let ring = "(" + points.map { "(\($0.longitude),\($0.latitude))" }.joined(separator: ",") + ")"
        let path = field.value
        return "(\(Self.isType(field, "GeoPoint")) AND \(bind(ring))::polygon @> "
            + "point((\(path) ->> 'longitude')::float8, (\(path) ->> 'latitude')::float8))"
    }

    /// The field is a GeoPoint inside the box, edges included.
    private mutating func inBox(_ field: PostgresField, latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> String {
        let path = field.value
        return "(\(Self.isType(field, "GeoPoint")) AND (\(path) ->> 'latitude')::float8 BETWEEN \(bind(latitudes.lowerBound)) AND "
            + "\(bind(latitudes.upperBound)) AND (\(path) ->> 'longitude')::float8 BETWEEN \(bind(longitudes.lowerBound)) AND \(bind(longitudes.upperBound)))"
    }

    /// The field's great-circle distance from `center` in radians (as ``ParseCoordinate/radians(to:)``
    /// computes it); null where the field is not a GeoPoint.
    private mutating func distance(_ field: PostgresField, from center: ParseCoordinate) -> String {
        let path = field.value
        let latitude = "(CASE WHEN \(Self.isType(field, "GeoPoint")) THEN (\(path) ->> 'latitude')::float8 END)"
        let longitude = "(CASE WHEN \(Self.isType(field, "GeoPoint")) THEN (\(path) ->> 'longitude')::float8 END)"
        let (centerLatitude, centerLongitude) = (bind(center.latitude), bind(center.longitude))
        return """
            (2 * asin(least(1, sqrt(power(sin(radians(\(centerLatitude)::float8 - \(latitude)) / 2), 2) \
            + cos(radians(\(latitude))) * cos(radians(\(centerLatitude)::float8)) * power(sin(radians(\(centerLongitude)::float8 - \(longitude)) / 2), 2)))))
            """
    }

    /// The field holds a value of Parse type `type`.
    private static func isType(_ field: PostgresField, _ type: String) -> String {
        "(\(field.value) ->> '__type' = '\(type)')"
    }

    /// Geo operators test fields, not `objectId`, `createdAt` or `updatedAt`.
    private static func checkGeoField(_ field: PostgresField, _ op: String) throws {
        guard field.column == nil else { throw ParseError.invalidQuery("\(op) needs a GeoPoint or Polygon field, not \(field.path)") }
    }
}
