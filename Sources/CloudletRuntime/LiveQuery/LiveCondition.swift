import Cloudlet

/// A LiveQuery subscription's `where`, or a part of it, compiled once (``LiveQueryCompiler``) and
/// tested against one object at a time.
indirect enum LiveCondition: Sendable {
    case constant(Bool)
    /// Every one holds (`AND`; true when empty).
    case all([LiveCondition])
    /// One of them holds (`OR`; false when empty).
    case any([LiveCondition])
    case not(LiveCondition)
    /// The test of one field.
    case test(LiveField, LiveTest)

    /// Whether `object` passes, its `$regex` tests spending `steps` (one that runs out does not match).
    func holds(for object: ParseObject, steps: inout Int) -> Bool {
        switch self {
        case .constant(let value): return value
        case .all(let conditions):
            for condition in conditions where !condition.holds(for: object, steps: &steps) { return false }
            return true
        case .any(let conditions):
            for condition in conditions where condition.holds(for: object, steps: &steps) { return true }
            return false
        case .not(let condition): return !condition.holds(for: object, steps: &steps)
        case .test(let field, let test): return test.holds(field.value(in: object), steps: &steps)
        }
    }
}

/// The test of one field's value, with the meaning the stores' compilers give it.
enum LiveTest: Sendable {
    /// Equality and `$in`: the value equals one of the set's, or (an array) holds one.
    case equals(LiveValueSet)
    /// `$exists: true`: the field is present, null included.
    case exists
    /// `$lt`, `$lte`, `$gt`, `$gte`: a value of the bound's type, ordered against it.
    case compare(QueryOperator.Order, Bound)
    /// `$regex`: a string the pattern matches.
    case regex(RegexProgram)
    /// `$containedBy`: an array each of whose elements is one of the set's values.
    case containedBy(LiveValueSet)
    /// Equality with a GeoPoint: the same latitude and longitude.
    case geoPoint(ParseCoordinate)
    /// Equality with a Polygon: the same ring, closed as it is stored.
    case polygon(coordinates: ParseValue)
    /// `$nearSphere` without a distance: any GeoPoint (the distance only orders a query's results).
    case isGeoPoint
    /// `$within`, `$geoWithin`, `$geoIntersects`, `$nearSphere` with a distance.
    case region(GeoRegion)

    /// What an order operator compares with: numbers with numbers, text with text byte by byte, a
    /// Date's `iso` with an object's `iso` text.
    enum Bound: Sendable {
        case number(Double)
        case text(String)
        case date(iso: String)
    }

    /// Whether `value` (nil when the field is missing) passes, `$regex` spending `steps`.
    func holds(_ value: ParseValue?, steps: inout Int) -> Bool {
        switch self {
        case .equals(let values): return values.isEqual(to: value)
        case .exists: return value != nil
        case .compare(let comparison, let bound): return value.flatMap { Self.order($0, bound) }.map(comparison.accepts) ?? false
        case .regex(let program):
            guard case .string(let text) = value, steps > 0 else { return false }
            do { return try program.matches(text, steps: &steps) } catch {
                steps = 0
                return false
            }
        case .containedBy(let values):
            guard case .array(let elements) = value else { return false }
            return elements.allSatisfy(values.holds)
        case .geoPoint(let point):
            return value?.parseType == "GeoPoint" && value?["latitude"] == .number(point.latitude)
                && value?["longitude"] == .number(point.longitude)
        case .polygon(let coordinates):
            guard let value, value.parseType == "Polygon", let stored = value["coordinates"] else { return false }
            return stored.isIdentical(to: coordinates)
        case .isGeoPoint: return value?.parseType == "GeoPoint"
        case .region(let region): return value.map(region.holds) ?? false
        }
    }

    /// How `value` orders against `bound` (-1, 0, 1); nil when it is not of the bound's type.
    private static func order(_ value: ParseValue, _ bound: Bound) -> Int? {
        switch (bound, value) {
        case (.number(let limit), .number(let number)): return number < limit ? -1 : number == limit ? 0 : 1
        case (.text(let limit), .string(let text)): return ExactText.order(text, limit)
        case (.date(let limit), .object(let members)):
            guard case .string(let iso) = members["iso"] else { return nil }
            return ExactText.order(iso, limit)
        default: return nil
        }
    }
}

extension QueryOperator.Order {
    /// Whether a value ordered `order` (-1, 0, 1) against the bound passes.
    func accepts(_ order: Int) -> Bool {
        switch self {
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }
}
