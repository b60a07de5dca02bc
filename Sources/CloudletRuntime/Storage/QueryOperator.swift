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
