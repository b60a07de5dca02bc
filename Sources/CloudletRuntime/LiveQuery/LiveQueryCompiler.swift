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

    mutating func operatorClause(_ field: LiveField, _ op: QueryOperator, depth: Int) throws -> LiveCondition {
        switch op {
        case .equal(let value): return try equality(field, value)
        case .notEqual(let value): return .not(try equality(field, value))
        case .order(let order, let value): return .test(field, .compare(order, try bound(field, value)))
        case .oneOf(let values): return try membership(field, values)
        case .noneOf(let values): return .not(try membership(field, values))
        case .all(let values): return .all(try values.map { try field.column == nil ? membership(field, [$0]) : equality(field, $0) })
        case .containedBy(let values): return .test(field, .containedBy(LiveValueSet(try values.map { try QueryOperand($0, path: field.path) })))
        case .exists(let exists): return field.column != nil ? .constant(exists) : exists ? .test(field, .exists) : .not(.test(field, .exists))
        case .regex(let pattern, let options):
            do { return .test(field, .regex(try RegexProgram(pattern: pattern, options: options))) } catch { throw ParseError.invalidQuery(error.message) }
        case .nearSphere(let center, let radians): return .test(field, radians.map { .region(.circle(center: center, radians: $0)) } ?? .isGeoPoint)
        case .region(let region): return .test(field, .region(region))
        case .text: throw Self.refusal("$text", "the app's full-text index")
        case .inner(let inner): throw Self.refusal(inner.op.rawValue, "the results of another query")
        }
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
