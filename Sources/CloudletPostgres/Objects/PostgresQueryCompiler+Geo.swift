import Cloudlet
import CloudletRuntime

/// Parse's geo operators in plain SQL, as the SQLite store reads them: a `GeoPoint` field tested
/// by its great-circle distance (the haversine formula, in radians) or its latitude and longitude (a
/// box; a polygon in the plane of longitude and latitude, through PostgreSQL's `polygon @> point`,
/// as Parse Server on PostgreSQL tests it); a `Polygon` field through the same operator. Malformed
/// operands answer 107, as Parse answers them.
extension PostgresQueryCompiler {
    /// `$nearSphere` around `center`, within `radians` if a `$maxDistance…` gave them: the field is
    /// a GeoPoint within that distance of the point. The query's first `$nearSphere` outside `$or`,
    /// `$and` and inner queries also orders the results, nearest first, after any order the query gives.
    mutating func nearSphere(_ field: PostgresField, _ center: ParseCoordinate, _ radians: Double?, depth: Int) -> String {
        if depth == 0, distanceOrder == nil { distanceOrder = distance(field, from: center) }
        let isGeoPoint = Self.isType(field, "GeoPoint")
        guard let radians else { return isGeoPoint }
        return "(\(isGeoPoint) AND \(distance(field, from: center)) <= \(bind(radians)))"
    }

    /// `$within` (`$box`), `$geoWithin` (`$polygon`, `$centerSphere`) or `$geoIntersects` (`$point`):
    /// the field lies in `region`.
    mutating func within(_ field: PostgresField, _ region: GeoRegion) -> String {
        let path = field.value
        switch region {
        case .box(let latitudes, let longitudes):
            return "(CASE WHEN \(Self.isType(field, "GeoPoint")) THEN (\(path) ->> 'latitude')::float8 BETWEEN \(bind(latitudes.lowerBound)) AND "
                + "\(bind(latitudes.upperBound)) AND (\(path) ->> 'longitude')::float8 BETWEEN \(bind(longitudes.lowerBound)) AND \(bind(longitudes.upperBound)) ELSE false END)"
        case .polygon(let points):
            let ring = "(" + points.map { "(\($0.longitude),\($0.latitude))" }.joined(separator: ",") + ")"
            return "(CASE WHEN \(Self.isType(field, "GeoPoint")) THEN \(bind(ring))::polygon @> "
                + "point((\(path) ->> 'longitude')::float8, (\(path) ->> 'latitude')::float8) ELSE false END)"
        case .circle(let center, let radians):
            return "(\(Self.isType(field, "GeoPoint")) AND \(distance(field, from: center)) <= \(bind(radians)))"
        case .containing(let center):
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
            return "(CASE WHEN \(Self.isType(field, "GeoPoint")) THEN (\(path) ->> 'latitude')::float8 = \(bind(point.latitude)) "
                + "AND (\(path) ->> 'longitude')::float8 = \(bind(point.longitude)) ELSE false END)"
        case "Polygon":
            _ = try ParsePolygon.validated(value, field: field.path)
            return "(\(Self.isType(field, "Polygon")) AND \(path) -> 'coordinates' = \(bindJSON(ParsePolygon.closed(value)["coordinates"]!)))"
        default:
            return nil
        }
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
}
