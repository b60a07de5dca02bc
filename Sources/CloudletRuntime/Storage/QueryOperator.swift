import Cloudlet

/// One operator of a field's condition in a `where` (`{"score": {"$gt": 3}}`), read once for every
/// compiler: its name told, its operand's shape checked, with the errors each compiler gave for
/// them. Each compiler writes each case its own way (``WhereCompiling/operatorClause(_:_:depth:)``).
package enum QueryOperator: Sendable {
    /// `$lt`, `$lte`, `$gt` or `$gte`.
    package enum Order: String, Sendable {
        case less = "$lt"
        case lessOrEqual = "$lte"
        case greater = "$gt"
        case greaterOrEqual = "$gte"

        /// The operator in SQL.
        package var symbol: String {
            switch self {
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
        }
    }

    /// `$eq`: the field equals the value.
    case equal(ParseValue)
    /// `$ne`: the field does not equal the value (a missing field included).
    case notEqual(ParseValue)
    /// An order operator with what it compares with.
    case order(Order, ParseValue)
    /// `$in`: the field equals one of the values (an array field: holds one).
    case oneOf([ParseValue])
    /// `$nin`: not `$in`.
    case noneOf([ParseValue])
    /// `$all`: the array field holds every one of the values.
    case all([ParseValue])
    /// `$containedBy`: every element of the array field is one of the values (a field, not a column).
    case containedBy([ParseValue])
    /// `$exists`: whether the field is present.
    case exists(Bool)
    /// `$regex` with the letters of its `$options` (among `imsx`).
    case regex(pattern: String, options: String)
    /// `$nearSphere` (on a field, not a column) with the smallest of its `$maxDistance…`, in radians.
    case nearSphere(center: ParseCoordinate, maximumRadians: Double?)
    /// `$within`, `$geoWithin` or `$geoIntersects` (on a field, not a column).
    case region(GeoRegion)
    /// `$text` with its operand.
    case text(ParseValue)
    /// `$inQuery`, `$notInQuery`, `$select` or `$dontSelect`.
    case inner(InnerQuery)

    /// The operators of `operators`, the condition of the field at `path`, in the order of their
    /// names. `$options` is read with `$regex` and `$maxDistance…` with `$nearSphere`; alone, each
    /// answers 102, as does an unknown operator or an operand of the wrong shape (a malformed geo
    /// operand answers 107, as in Parse).
    package static func operators(of operators: [String: ParseValue], path: String) throws -> [QueryOperator] {
        try operators.keys.sorted().compactMap { name in
            let operand = operators[name]!
            if let order = Order(rawValue: name) { return .order(order, operand) }
            switch name {
            case "$eq": return .equal(operand)
            case "$ne": return .notEqual(operand)
            case "$in", "$nin", "$all", "$containedBy":
                guard let values = operand.arrayValue else { throw ParseError.invalidQuery("\(name) needs an array") }
                switch name {
                case "$in": return .oneOf(values)
                case "$nin": return .noneOf(values)
                case "$all": return .all(values)
                default:
                    guard QueryTerms.column(path) == nil else { throw ParseError.invalidQuery("$containedBy needs an array field, not \(path)") }
                    return .containedBy(values)
                }
            case "$exists":
                guard let exists = operand.boolValue else { throw ParseError.invalidQuery("$exists needs true or false") }
                return .exists(exists)
            case "$regex":
                guard let pattern = operand.stringValue else { throw ParseError.invalidQuery("$regex needs a string") }
                return .regex(pattern: pattern, options: try QueryTerms.regexOptions(operators["$options"]))
            case "$options":
                guard operators["$regex"] != nil else { throw ParseError.invalidQuery("$options needs $regex") }
                return nil
            case "$nearSphere":
                try GeoOperands.checkField(path, name)
                let center = try GeoOperands.point(operand, name, acceptsPair: false)
                return .nearSphere(center: center, maximumRadians: try GeoOperands.maximumRadians(operators))
            case _ where GeoOperands.maximumDistances[name] != nil:
                guard operators["$nearSphere"] != nil else { throw ParseError.invalidQuery("\(name) needs $nearSphere") }
                return nil
            case "$within", "$geoWithin", "$geoIntersects":
                try GeoOperands.checkField(path, name)
                return .region(try GeoRegion(name, operand))
            case "$text":
                return .text(operand)
            default:
                guard let inner = InnerQuery.Operator(rawValue: name) else { throw ParseError.invalidQuery("unsupported query operator \(name)") }
                return .inner(try InnerQuery(inner, operand))
            }
        }
    }
}

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
