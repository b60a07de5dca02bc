import Cloudlet
import CloudletRuntime
import GRDB

/// Parse's geo operators, as Parse Server on PostgreSQL serves them. A `GeoPoint` field is tested
/// through `cloudlet_geo_distance` (on the sphere) or its latitude and longitude (a box, a polygon in
/// the plane of longitude and latitude, edges included); a `Polygon` field through
/// `cloudlet_polygon_contains`. A point in an operand is a `GeoPoint` or, where Parse takes one, a
/// `[longitude, latitude]` pair. Malformed operands answer 107, as Parse answers them.
extension SQLiteQueryBuilder {
    /// `$nearSphere` around `center`, within `radians` if a `$maxDistance…` gave them: the field is
    /// a GeoPoint within that distance of the point. The query's first `$nearSphere` outside `$or`
    /// and `$and` also orders the results, nearest first, after any order the query gives.
    mutating func nearSphere(_ field: QueryField, _ center: ParseCoordinate, _ radians: Double?, depth: Int) -> String {
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

    /// `$within` (`$box`), `$geoWithin` (`$polygon`, `$centerSphere`) or `$geoIntersects` (`$point`):
    /// the field lies in `region`.
    mutating func within(_ field: QueryField, _ region: GeoRegion) -> String {
        switch region {
        case .box(let latitudes, let longitudes):
            return inBox(field, latitudes: latitudes, longitudes: longitudes)
        case .polygon(let points):
            return withinPolygon(field, points)
        case .circle(let center, let radians):
            let isGeoPoint = isType(field, "GeoPoint")
            let within = distance(field, from: center, &arguments)
            arguments += [radians]
            return "(\(isGeoPoint) AND \(within) <= ?)"
        case .containing(let center):
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

    /// The field is a GeoPoint inside the polygon of `points`, edges included.
    private mutating func withinPolygon(_ field: QueryField, _ points: [ParseCoordinate]) -> String {
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
}
