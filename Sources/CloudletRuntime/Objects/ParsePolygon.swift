import Cloudlet

/// Parse's `Polygon` type as the server checks and stores it: `[latitude, longitude]` pairs, at
/// least three different points, each in range; an open ring is closed (its first point repeated
/// at the end) as it is saved, as Parse Server stores it.
package enum ParsePolygon {
    /// The most points one polygon may have, saved or in a query's `$polygon`: every test of a
    /// point against a polygon does work in proportion to its points.
    package static let maximumPoints = 1_000

    /// The points of a `Polygon` value, checked: 111 for a malformed value or a point out of range,
    /// 107 for too few points (or too few different ones) or too many.
    package static func validated(_ value: ParseValue, field: String) throws(ParseError) -> [ParseCoordinate] {
        guard let pairs = value["coordinates"]?.arrayValue else { throw .incorrectType("invalid Polygon for field \(field)") }
        guard pairs.count >= 3 else { throw .invalidJSON("Polygon must have at least 3 values") }
        guard pairs.count <= maximumPoints else { throw .invalidJSON("Polygon may have at most \(maximumPoints) points") }
        guard let points = value.polygonValue, points.allSatisfy(\.isValid) else {
            throw .incorrectType("invalid Polygon for field \(field): each point is a [latitude, longitude] pair in range")
        }
        guard Set(points).count >= 3 else { throw .invalidJSON("Polygon must have at least 3 different vertices") }
        return points
    }

    /// A checked `Polygon` value as it is stored: its ring closed.
    package static func closed(_ value: ParseValue) -> ParseValue {
        guard let points = value.polygonValue, let first = points.first, points.last != first else { return value }
        return .polygon(points + [first])
    }
}
