import Cloudlet
import CloudletRuntime

/// The list operators `$in`, `$nin` and `$all`, with the typed equality of ``equality(_:_:)`` on
/// each value. A column's values, and a field's plain ones (Strings, numbers, Booleans) when there
/// are several, are bound as one array, as the SQLite store binds its lists: a list of thousands
/// compiles to one test, not one per value, so that it stays within the SQL the ``QueryBounds``
/// allow wherever SQLite's does.
extension PostgresQueryCompiler {
    /// `$in`: the field equals one of `values` (for an array field: holds one of them).
    mutating func membership(_ field: PostgresField, _ values: [ParseValue]) throws -> String {
        if let column = field.column {
            // A column is never null: a null in the list matches nothing.
            let operands = try values.filter { !Self.isNull($0) }.map { try QueryTerms.columnOperand(column, path: field.path, $0) }
            return operands.isEmpty ? "false" : "(\(column) = ANY(\(bind(operands))))"
        }
        let plain = values.filter(Self.isPlain)
        guard plain.count > 1 else { return Self.joined(try values.map { try equality(field, $0) }, "OR") }
        var tests = try values.filter { !Self.isPlain($0) }.map { try equality(field, $0) }
        tests.append("EXISTS (SELECT 1 FROM jsonb_array_elements(\(bindJSON(.array(plain)))) AS wanted WHERE \(Self.plainEquality(field, "wanted")))")
        return Self.joined(tests, "OR")
    }

    /// `$all`: the field holds every one of `values`.
    mutating func containsAll(_ field: PostgresField, _ values: [ParseValue]) throws -> String {
        let plain = field.column == nil ? values.filter(Self.isPlain) : []
        guard plain.count > 1 else { return Self.joined(try values.map { try equality(field, $0) }, "AND") }
        var tests = try values.filter { !Self.isPlain($0) }.map { try equality(field, $0) }
        // No wanted value is missing from the field.
        let wanted = "jsonb_array_elements(\(bindJSON(.array(plain))))"
        tests.append("NOT EXISTS (SELECT 1 FROM \(wanted) AS wanted WHERE NOT COALESCE(\(Self.plainEquality(field, "wanted")), false))")
        return Self.joined(tests, "AND")
    }

    /// The field equals the plain JSON value `value` (SQL): the same JSON value, or an array holding it.
    static func plainEquality(_ field: PostgresField, _ value: String) -> String {
        let path = field.value
        return "(\(path) = \(value) OR (jsonb_typeof(\(path)) = 'array' AND \(path) @> jsonb_build_array(\(value))))"
    }

    /// Whether `value` is a String, a number or a Boolean.
    private static func isPlain(_ value: ParseValue) -> Bool {
        switch value {
        case .bool, .string, .number: true
        default: false
        }
    }

    private static func isNull(_ value: ParseValue) -> Bool {
        if case .null = value { return true }
        return false
    }
}
