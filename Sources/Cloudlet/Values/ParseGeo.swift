import Foundation

/// A place on Earth: latitude and longitude in degrees.
public struct ParseCoordinate: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both are finite and in range: latitude in -90...90, longitude in -180...180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// The great-circle distance to `other` in radians (haversine, on a sphere); multiply by
    /// ``earthRadiusKilometers`` or ``earthRadiusMiles`` for a length.
    public func radians(to other: ParseCoordinate) -> Double {
        let degree = Double.pi / 180
        let halfLatitude = (other.latitude - latitude) * degree / 2
        let halfLongitude = (other.longitude - longitude) * degree / 2
        let sinLatitude = sin(halfLatitude), sinLongitude = sin(halfLongitude)
        let a = sinLatitude * sinLatitude
            + cos(latitude * degree) * cos(other.latitude * degree) * sinLongitude * sinLongitude
        return 2 * asin(min(1, a.squareRoot()))
    }

    /// Earth's radius as Parse measures distances in kilometers.
    public static let earthRadiusKilometers = 6371.0
    /// Earth's radius as Parse measures distances in miles.
    public static let earthRadiusMiles = 3958.8
}

extension ParseValue {
    /// A Parse `Polygon`: `{"__type": "Polygon", "coordinates": [[latitude, longitude], …]}`. The
    /// server closes an open ring (repeats the first point at the end) as it saves it.
    public static func polygon(_ points: [ParseCoordinate]) -> ParseValue {
        .object([
            "__type": "Polygon",
            "coordinates": .array(points.map { [.number($0.latitude), .number($0.longitude)] }),
        ])
    }

    /// The latitude and longitude, if this is a Parse `GeoPoint`.
    public var geoPointValue: ParseCoordinate? {
        guard parseType == "GeoPoint", let latitude = self["latitude"]?.doubleValue,
            let longitude = self["longitude"]?.doubleValue
        else { return nil }
        return ParseCoordinate(latitude: latitude, longitude: longitude)
    }

    /// The points, if this is a Parse `Polygon` whose coordinates are `[latitude, longitude]` pairs.
    public var polygonValue: [ParseCoordinate]? {
        guard parseType == "Polygon", let pairs = self["coordinates"]?.arrayValue else { return nil }
        var points: [ParseCoordinate] = []
        for pair in pairs {
            guard let numbers = pair.arrayValue, numbers.count == 2,
                let latitude = numbers[0].doubleValue, let longitude = numbers[1].doubleValue
            else { return nil }
            points.append(ParseCoordinate(latitude: latitude, longitude: longitude))
        }
        return points
    }
}
