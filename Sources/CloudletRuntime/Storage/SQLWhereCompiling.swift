import Cloudlet

/// A compiler of a `where` into SQL (SQLite's or PostgreSQL's): each operator is written from the
/// same parts in every dialect (``operatorClause(_:_:depth:)``), and each dialect writes the parts.
package protocol SQLWhereCompiling: WhereCompiling where Clause == String {
    /// False in the dialect: what a negated test of a missing field is taken as before `NOT`, so that
    /// `$ne` and `$nin` hold for an object without the field.
    static var falseLiteral: String { get }
    /// `field` ordered against `value` by `symbol` (`<`, `<=`, `>`, `>=`).
    mutating func comparison(_ field: Field, _ symbol: String, _ value: ParseValue) throws -> String
    /// `$in`: `field` equals one of `values` (an array field: holds one).
    mutating func membership(_ field: Field, _ values: [ParseValue]) throws -> String
    /// `$all`: the array `field` holds every one of `values`.
    mutating func containsAll(_ field: Field, _ values: [ParseValue]) throws -> String
    /// `$containedBy`: every element of the array `field` is one of `values`.
    mutating func containedBy(_ field: Field, _ values: [ParseValue]) throws -> String
    /// `$exists`: whether `field` is present (`exists`) or not.
    mutating func presence(_ field: Field, _ exists: Bool) -> String
    /// `$regex`: `field` is a string `pattern` matches, with the letters of `options`.
    mutating func regex(_ field: Field, _ pattern: String, options: String) throws -> String
    /// `$nearSphere` around `center`, within `radians` if given, nested `depth` deep.
    mutating func nearSphere(_ field: Field, _ center: ParseCoordinate, _ radians: Double?, depth: Int) -> String
    /// `$within`, `$geoWithin`, `$geoIntersects`: `field` lies in `region`.
    mutating func within(_ field: Field, _ region: GeoRegion) -> String
    /// `$text` with its operand.
    mutating func textClause(_ field: Field, _ operand: ParseValue) throws -> String
    /// An inner query's operator, nested `depth` deep.
    mutating func innerQuery(_ field: Field, _ inner: InnerQuery, depth: Int) throws -> String
}

extension SQLWhereCompiling {
    package mutating func operatorClause(_ field: Field, _ op: QueryOperator, depth: Int) throws -> String {
        switch op {
        case .equal(let value): try equality(field, value)
        case .notEqual(let value): "NOT COALESCE(\(try equality(field, value)), \(Self.falseLiteral))"
        case .order(let order, let value): try comparison(field, order.symbol, value)
        case .oneOf(let values): try membership(field, values)
        case .noneOf(let values): "NOT COALESCE(\(try membership(field, values)), \(Self.falseLiteral))"
        case .all(let values): try containsAll(field, values)
        case .containedBy(let values): try containedBy(field, values)
        case .exists(let exists): presence(field, exists)
        case .regex(let pattern, let options): try regex(field, pattern, options: options)
        case .nearSphere(let center, let radians): nearSphere(field, center, radians, depth: depth)
        case .region(let region): within(field, region)
        case .text(let operand): try textClause(field, operand)
        case .inner(let inner): try innerQuery(field, inner, depth: depth + 1)
        }
    }
}
