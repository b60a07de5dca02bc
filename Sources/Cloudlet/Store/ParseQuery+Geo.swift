/// Parse's geo operators as typed calls: distances on a sphere, boxes, polygons.
///
/// ```swift
/// let here = ParseCoordinate(latitude: 48.8566, longitude: 2.3522)
/// let nearby = ParseQuery("Cafes")
///     .whereKey("location", nearGeoPoint: here, maxDistanceKilometers: 2)
///     .limit(10)  // nearest first
/// ```
extension ParseQuery {
    /// Only objects whose GeoPoint `key` is within `maxDistance` radians of `point` (all when nil),
    /// ordered nearest first after any other order (`$nearSphere`, `$maxDistanceInRadians`).
    public func whereKey(_ key: String, nearGeoPoint point: ParseCoordinate, maxDistanceRadians maxDistance: Double? = nil) -> ParseQuery {
        near(key, point, "$maxDistanceInRadians", maxDistance)
    }

    /// As ``whereKey(_:nearGeoPoint:maxDistanceRadians:)``, the distance in kilometers.
    public func whereKey(_ key: String, nearGeoPoint point: ParseCoordinate, maxDistanceKilometers maxDistance: Double) -> ParseQuery {
        near(key, point, "$maxDistanceInKilometers", maxDistance)
    }

    /// As ``whereKey(_:nearGeoPoint:maxDistanceRadians:)``, the distance in miles.
    public func whereKey(_ key: String, nearGeoPoint point: ParseCoordinate, maxDistanceMiles maxDistance: Double) -> ParseQuery {
        near(key, point, "$maxDistanceInMiles", maxDistance)
    }

    /// Only objects whose GeoPoint `key` is within `kilometers` of `point`, in no particular order
    /// (`$geoWithin` with `$centerSphere`).
    public func whereKey(_ key: String, withinKilometers kilometers: Double, of point: ParseCoordinate) -> ParseQuery {
        let center: ParseValue = [.number(point.longitude), .number(point.latitude)]
        return whereKey(key, "$geoWithin", ["$centerSphere": [center, .number(kilometers / ParseCoordinate.earthRadiusKilometers)]])
    }

    /// Only objects whose GeoPoint `key` lies in the box between two corners, edges included
    /// (`$within` with `$box`).
    public func whereKey(_ key: String, withinGeoBoxFrom southwest: ParseCoordinate, to northeast: ParseCoordinate) -> ParseQuery {
        whereKey(key, "$within", ["$box": [Self.geoPoint(southwest), Self.geoPoint(northeast)]])
    }

    /// Only objects whose GeoPoint `key` lies in the polygon of `points` (at least 3), edges
    /// included (`$geoWithin` with `$polygon`).
    public func whereKey(_ key: String, withinPolygon points: [ParseCoordinate]) -> ParseQuery {
        whereKey(key, "$geoWithin", ["$polygon": .array(points.map(Self.geoPoint))])
    }

    /// Only objects whose Polygon `key` contains `point`, edges included (`$geoIntersects`).
    public func whereKey(_ key: String, polygonContains point: ParseCoordinate) -> ParseQuery {
        whereKey(key, "$geoIntersects", ["$point": Self.geoPoint(point)])
    }

    private func near(_ key: String, _ point: ParseCoordinate, _ op: String, _ maxDistance: Double?) -> ParseQuery {
        let query = whereKey(key, "$nearSphere", Self.geoPoint(point))
        return maxDistance.map { query.whereKey(key, op, .number($0)) } ?? query
    }

    private static func geoPoint(_ point: ParseCoordinate) -> ParseValue {
        .geoPoint(latitude: point.latitude, longitude: point.longitude)
    }
}
