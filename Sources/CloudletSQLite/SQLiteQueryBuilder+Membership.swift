import Cloudlet
import GRDB

extension SQLiteQueryBuilder {
    /// `$in`: the field equals one of `values` (for an array field: holds one of them), with the
    /// typed equality of ``equality(_:_:)``. Values of one kind are bound as one JSON array.
    mutating func membership(_ field: QueryField, _ values: [ParseValue]) throws -> String {
        guard !values.isEmpty else { return "0" }
        if let column = field.column {
            let operands = try values.map { ParseValue.string(try columnOperand(field, $0)) }
            arguments += [JSONWriter.string(.array(operands))]
            return "(\(column) IN (SELECT value FROM json_each(?)))"
        }
        var clauses: [String] = []
        for group in try Self.grouped(values, field: field) {
            switch group {
            case .null: clauses.append(try equality(field, .null))
            case .kind(let kind, let bounds):
                clauses.append(match(field, kind, Self.comparand(bounds)))
            }
        }
        return Self.joined(clauses, "OR")
    }

    /// `$all`: the field holds every one of `values` (each as ``equality(_:_:)`` tests it).
    mutating func containsAll(_ field: QueryField, _ values: [ParseValue]) throws -> String {
        guard !values.isEmpty else { return "1" }
        if field.isColumn { return Self.joined(try values.map { try equality(field, $0) }, "AND") }
        var clauses: [String] = []
        for group in try Self.grouped(values, field: field) {
            switch group {
            case .null: clauses.append(try equality(field, .null))
            case .kind(let kind, let bounds) where bounds.count < 2:
                clauses.append(match(field, kind, Self.comparand(bounds)))
            case .kind(let kind, let bounds):
                // No wanted value is missing from the field.
                arguments += [JSONWriter.string(.array(bounds))]
                let test = match(field, kind, .column("wanted.value"))
                clauses.append("NOT EXISTS (SELECT 1 FROM json_each(?) AS wanted WHERE NOT COALESCE(\(test), 0))")
            }
        }
        return Self.joined(clauses, "AND")
    }

    /// `$containedBy`: the field (not a column) is an array each of whose elements equals one of
    /// `values` (with the typed equality of ``equality(_:_:)``); an empty array is contained by any list.
    mutating func containedBy(_ field: QueryField, _ values: [ParseValue]) throws -> String {
        arguments += [field.jsonPath, field.jsonPath]
        var tests: [String] = []
        for group in try Self.grouped(values, field: field) {
            switch group {
            case .null: tests.append("element.type = 'null'")
            case .kind(let kind, let bounds):
                let types = (kind.suffix.isEmpty ? kind.types : ["object"]).map { "'\($0)'" }.joined(separator: ", ")
                var test = "element.type IN (\(types))"
                if let comparand = Self.comparand(bounds) {
                    // SQLite may read an element's value past a false type test: only an object's reaches json_extract.
                    test += kind.suffix.isEmpty
                        ? " AND element.value" : " AND json_extract(CASE element.type WHEN 'object' THEN element.value END, '$\(kind.suffix)')"
                    test += comparand.sql(&arguments)
                }
                tests.append("(\(test))")
            }
        }
        let contained = Self.joined(tests, "OR")
        return "(json_type(data, ?) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(data, ?) AS element WHERE NOT COALESCE(\(contained), 0)))"
    }

    /// Values of one kind, compared together.
    private enum Group {
        case null
        /// Values of `kind`; `bounds` is empty for Booleans, which match on type alone.
        case kind(Operand.Kind, bounds: [ParseValue])
    }

    private static func grouped(_ values: [ParseValue], field: QueryField) throws -> [Group] {
        var order: [Operand.Kind] = []
        var bounds: [Operand.Kind: [ParseValue]] = [:]
        var hasNull = false
        for value in values {
            if case .null = value {
                hasNull = true
                continue
            }
            let operand = try Operand(value, field: field)
            if bounds[operand.kind] == nil { order.append(operand.kind) }
            bounds[operand.kind, default: []] += operand.bound.map { [$0] } ?? []
        }
        return (hasNull ? [.null] : []) + order.map { .kind($0, bounds: bounds[$0]!) }
    }

    /// One bound value, any of a bound list, or nil (match on type alone) when there is none.
    private static func comparand(_ bounds: [ParseValue]) -> Comparand? {
        switch bounds.count {
        case 0: nil
        case 1: .value(Operand.databaseValue(bounds[0]))
        default: .anyOf(jsonArray: JSONWriter.string(.array(bounds)))
        }
    }
}
