import Cloudlet
import CloudletRuntime
import GRDB

/// Parse's geo operators, as Parse Server on PostgreSQL serves them. A `GeoPoint` field is tested
/// through `cloudlet_geo_distance` (on the sphere) or its latitude and longitude (a box, a polygon in
/// the plane of longitude and latitude, edges included); a `Polygon` field through
/// `cloudlet_polygon_contains`. A point in an operand is a `GeoPoint` or, where Parse takes one, a
/// `[longitude, latitude]` pair. Malformed operands answer 107, as Parse answers them.
extension SQLiteQueryBuilder {
    /// `$nearSphere`, with the `$maxDistance…` among `operators` if there is one: the field is a
    /// GeoPoint within that distance of the point. The query's first `$nearSphere` outside `$or` and
    /// `$and` also orders the results, nearest first, after any order the query gives.
    mutating func nearSphere(_ field: QueryField, _ operand: ParseValue, _ operators: [String: ParseValue], depth: Int) throws -> String {
        try Self.checkGeoField(field, "$nearSphere")
        let center = try GeoOperands.point(operand, "$nearSphere", acceptsPair: false)
        let radians = try GeoOperands.maximumRadians(operators)
        if depth == 0, distanceOrder == nil {
            var orderArguments = StatementArguments()
            distanceOrder = (distance(field, from: center, &orderArguments), orderArguments)
        }
        let isGeoPoint = isType(field, "GeoPoint")
        guard let radians else { return isGeoPoint }
        let within = distance(field, from: center, &arguments)
        arguments += [radians]
        return "(\(isGeoPoint) AND \(within) <= ?)"
    }

    /// `$within` (`$box`), `$geoWithin` (`$polygon`, `$centerSphere`) or `$geoIntersects` (`$point`).
    mutating func geoClause(_ field: QueryField, _ op: String, _ operand: ParseValue) throws -> String {
        try Self.checkGeoField(field, op)
        let members = operand.objectValue ?? [:]
        switch op {
        case "$within":
            guard let corners = members["$box"]?.arrayValue, corners.count == 2 else {
                throw ParseError.invalidJSON("bad $within value; $box should be an array of two GeoPoints")
            }
            let (a, b) = (try GeoOperands.point(corners[0], "$box", acceptsPair: false), try GeoOperands.point(corners[1], "$box", acceptsPair: false))
            return inBox(field, latitudes: min(a.latitude, b.latitude)...max(a.latitude, b.latitude),
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
            let isPolygon = isType(field, "Polygon")
            arguments += [field.jsonPath + ".coordinates", center.latitude, center.longitude]
            return "(\(isPolygon) AND cloudlet_polygon_contains(json_extract(data, ?), ?, ?))"
        }
    }

    /// Equality with a GeoPoint (the same latitude and longitude) or a Polygon (the same ring,
    /// closed as it is stored), as Parse Server's `equalTo` finds them; nil for other values.
    mutating func geoEquality(_ field: QueryField, _ value: ParseValue) throws -> String? {
        switch value.parseType {
        case "GeoPoint":
            let point = try GeoOperands.point(value, "GeoPoint", acceptsPair: false)
            let isGeoPoint = isType(field, "GeoPoint")
            arguments += [field.jsonPath + ".latitude", point.latitude, field.jsonPath + ".longitude", point.longitude]
            return "(\(isGeoPoint) AND json_extract(data, ?) = ? AND json_extract(data, ?) = ?)"
        case "Polygon":
            _ = try ParsePolygon.validated(value, field: field.path)
            let isPolygon = isType(field, "Polygon")
            arguments += [field.jsonPath + ".coordinates", JSONWriter.string(ParsePolygon.closed(value)["coordinates"]!)]
            return "(\(isPolygon) AND json_extract(data, ?) = json(?))"
        default:
            return nil
        }
    }

    /// `$centerSphere`: `[point, radius in radians]`.
    private mutating func withinCircle(_ field: QueryField, _ circle: ParseValue) throws -> String {
        guard let parts = circle.arrayValue, parts.count == 2 else {
            throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance")
        }
        let center = try GeoOperands.point(parts[0], "$centerSphere", acceptsPair: true)
        guard let radians = parts[1].doubleValue, radians.isFinite, radians >= 0 else {
            throw ParseError.invalidJSON("bad $geoWithin value; $centerSphere distance invalid")
        }
        let isGeoPoint = isType(field, "GeoPoint")
        let within = distance(field, from: center, &arguments)
        arguments += [radians]
        return "(\(isGeoPoint) AND \(within) <= ?)"
    }

    /// `$polygon`: three to ``ParsePolygon/maximumPoints`` points, or a `Polygon` whose coordinates
    /// are read as `[longitude, latitude]` pairs, as Parse Server reads them here.
    private mutating func withinPolygon(_ field: QueryField, _ polygon: ParseValue) throws -> String {
        guard let members = polygon.parseType == "Polygon" ? polygon["coordinates"]?.arrayValue : polygon.arrayValue else {
            throw ParseError.invalidJSON("bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's")
        }
        guard members.count >= 3 else { throw ParseError.invalidJSON("bad $geoWithin value; $polygon should contain at least 3 GeoPoints") }
        guard members.count <= ParsePolygon.maximumPoints else {
            throw ParseError.invalidQuery("$polygon may have at most \(ParsePolygon.maximumPoints) points")
        }
        let points = try members.map { try GeoOperands.point($0, "$polygon", acceptsPair: true) }
        let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
        let box = inBox(field, latitudes: latitudes.min()!...latitudes.max()!, longitudes: longitudes.min()!...longitudes.max()!)
        arguments += [JSONWriter.string(ParseValue.polygon(points)["coordinates"]!)]
        arguments += [field.jsonPath + ".latitude", field.jsonPath + ".longitude"]
        return "(\(box) AND cloudlet_polygon_contains(?, json_extract(data, ?), json_extract(data, ?)))"
    }

    /// The field is a GeoPoint inside the box, edges included.
    private mutating func inBox(_ field: QueryField, latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> String {
        let isGeoPoint = isType(field, "GeoPoint")
        arguments += [field.jsonPath + ".latitude", latitudes.lowerBound, latitudes.upperBound]
        arguments += [field.jsonPath + ".longitude", longitudes.lowerBound, longitudes.upperBound]
        return "(\(isGeoPoint) AND json_extract(data, ?) BETWEEN ? AND ? AND json_extract(data, ?) BETWEEN ? AND ?)"
    }

    /// The field's distance from `center` in radians, binding into `bound`.
    private func distance(_ field: QueryField, from center: ParseCoordinate, _ bound: inout StatementArguments) -> String {
        bound += [field.jsonPath + ".latitude", field.jsonPath + ".longitude", center.latitude, center.longitude]
        return "cloudlet_geo_distance(json_extract(data, ?), json_extract(data, ?), ?, ?)"
    }

    /// The field holds a value of Parse type `type`.
    private mutating func isType(_ field: QueryField, _ type: String) -> String {
        arguments += [field.jsonPath + ".__type", type]
        return "json_extract(data, ?) = ?"
    }

    /// Geo operators test fields, not `objectId`, `createdAt` or `updatedAt`.
    private static func checkGeoField(_ field: QueryField, _ op: String) throws {
        guard !field.isColumn else { throw ParseError.invalidQuery("\(op) needs a GeoPoint or Polygon field, not \(field.path)") }
    }
}
