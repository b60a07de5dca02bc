import Cloudlet

/// Turns a LiveQuery subscription's `where` into a ``LiveCondition``, through the walk the stores'
/// compilers share (``WhereCompiling``) and the same bounds, with the meaning and the errors
/// their compilers give each operator. What needs other rows than the object itself (inner
/// queries, `$relatedTo`, `$text` and its index) is refused with 102.
struct LiveQueryCompiler: WhereCompiling {
    var bounds = QueryBounds()

    func field(_ path: String) -> LiveField {
        LiveField(path)
    }

    static func joined(_ parts: [LiveCondition], _ connective: String) -> LiveCondition {
        if parts.count == 1 { return parts[0] }
        return connective == "OR" ? .any(parts) : .all(parts)
    }

    mutating func relatedTo(_ operand: ParseValue) throws -> LiveCondition {
        _ = try QueryTerms.relatedTo(operand)
        throw Self.refusal("$relatedTo", "the objects of a relation")
    }

    /// `field` equal to `value`: as the stores' `equality`, GeoPoints and Polygons by their points.
    mutating func equality(_ field: LiveField, _ value: ParseValue) throws -> LiveCondition {
        if field.column != nil {
            if case .null = value { return .constant(false) }
            return .test(field, .equals(LiveValueSet([.string(try columnOperand(field, value))])))
        }
        switch value.parseType {
        case "GeoPoint": return .test(field, .geoPoint(try GeoOperands.point(value, "GeoPoint", acceptsPair: false)))
        case "Polygon":
            _ = try ParsePolygon.validated(value, field: field.path)
            return .test(field, .polygon(coordinates: ParsePolygon.closed(value)["coordinates"]!))
        default: return .test(field, .equals(LiveValueSet([try QueryOperand(value, path: field.path)])))
        }
    }

    mutating func operatorClauses(_ field: LiveField, _ operators: [String: ParseValue], depth: Int) throws -> LiveCondition {
        var conditions: [LiveCondition] = []
        for op in operators.keys.sorted() {
            let operand = operators[op]!
            switch op {
            case "$eq": conditions.append(try equality(field, operand))
            case "$ne": conditions.append(.not(try equality(field, operand)))
            case "$lt", "$lte", "$gt", "$gte": conditions.append(.test(field, .compare(LiveTest.Comparison(op)!, try bound(field, operand))))
            case "$in", "$nin", "$all", "$containedBy":
                guard let values = operand.arrayValue else { throw ParseError.invalidQuery("\(op) needs an array") }
                switch op {
                case "$in": conditions.append(try membership(field, values))
                case "$nin": conditions.append(.not(try membership(field, values)))
                case "$all": conditions.append(.all(try values.map { try field.column == nil ? membership(field, [$0]) : equality(field, $0) }))
                default:
                    guard field.column == nil else { throw ParseError.invalidQuery("$containedBy needs an array field, not \(field.path)") }
                    conditions.append(.test(field, .containedBy(LiveValueSet(try values.map { try QueryOperand($0, path: field.path) }))))
                }
            case "$exists":
                guard let exists = operand.boolValue else { throw ParseError.invalidQuery("$exists needs true or false") }
                conditions.append(field.column != nil ? .constant(exists) : exists ? .test(field, .exists) : .not(.test(field, .exists)))
            case "$regex":
                guard let pattern = operand.stringValue else { throw ParseError.invalidQuery("$regex needs a string") }
                let options = try QueryTerms.regexOptions(operators["$options"])
                do { conditions.append(.test(field, .regex(try RegexProgram(pattern: pattern, options: options)))) } catch {
                    throw ParseError.invalidQuery(error.message)
                }
            case "$options":
                guard operators["$regex"] != nil else { throw ParseError.invalidQuery("$options needs $regex") }
            case "$nearSphere":
                try GeoOperands.checkField(field.path, op)
                let center = try GeoOperands.point(operand, op, acceptsPair: false)
                let radians = try GeoOperands.maximumRadians(operators)
                conditions.append(.test(field, radians.map { .region(.circle(center: center, radians: $0)) } ?? .isGeoPoint))
            case _ where GeoOperands.maximumDistances[op] != nil:
                guard operators["$nearSphere"] != nil else { throw ParseError.invalidQuery("\(op) needs $nearSphere") }
            case "$within", "$geoWithin", "$geoIntersects":
                try GeoOperands.checkField(field.path, op)
                conditions.append(.test(field, .region(try GeoRegion(op, operand))))
            case "$text":
                throw Self.refusal(op, "the app's full-text index")
            default:
                guard let inner = InnerQuery.Operator(rawValue: op) else { throw ParseError.invalidQuery("unsupported query operator \(op)") }
                _ = try InnerQuery(inner, operand)
                throw Self.refusal(op, "the results of another query")
            }
        }
        return Self.joined(conditions, "AND")
    }

    /// `$in`: the field equals one of `values` (for an array field: holds one), each read as the
    /// SQLite store reads the values of a list (a GeoPoint or a Polygon is refused with 102).
    private func membership(_ field: LiveField, _ values: [ParseValue]) throws -> LiveCondition {
        guard !values.isEmpty else { return .constant(false) }
        let operands = try values.map { value -> QueryOperand in
            guard field.column != nil else { return try QueryOperand(value, path: field.path) }
            return .string(try columnOperand(field, value))
        }
        return .test(field, .equals(LiveValueSet(operands)))
    }

    /// What an order operator compares the field with: a number, a string or a Date (the text of
    /// the column for `objectId`, `createdAt` and `updatedAt`); 102 for anything else.
    private func bound(_ field: LiveField, _ value: ParseValue) throws -> LiveTest.Bound {
        switch value {
        case .number, .string: break
        case .object where value.parseType == "Date": break
        default: throw ParseError.invalidQuery("\(field.path): comparisons need a number, string or Date")
        }
        if field.column != nil { return .text(try columnOperand(field, value)) }
        switch try QueryOperand(value, path: field.path) {
        case .number(let number): return .number(number)
        case .string(let text): return .text(text)
        case .date(let iso): return .date(iso: iso)
        default: throw ParseError.invalidQuery("\(field.path): cannot compare this type")
        }
    }

    /// The text to compare `objectId`, `createdAt` or `updatedAt` with.
    private func columnOperand(_ field: LiveField, _ value: ParseValue) throws -> String {
        try QueryTerms.columnOperand(QueryTerms.column(field.path) ?? "", path: field.path, value)
    }

    /// The refusal of `op`, which needs `what` to decide.
    private static func refusal(_ op: String, _ what: String) -> ParseError {
        .invalidQuery("\(op) needs \(what), so a LiveQuery subscription cannot use it; subscribe to a query without it")
    }
}
