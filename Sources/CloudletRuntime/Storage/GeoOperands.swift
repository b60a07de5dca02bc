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
