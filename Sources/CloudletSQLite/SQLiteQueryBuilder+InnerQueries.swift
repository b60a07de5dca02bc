import Cloudlet
import CloudletRuntime
import GRDB

extension SQLiteQueryBuilder {
    /// An inner query's test of `field`, nested `depth` deep: for `$inQuery`, the field (or an
    /// element of it) points to one of the inner rows; for `$select`, its value (or an element of
    /// it) equals the `key` of one of them. `$notInQuery` and `$dontSelect` are the opposite (true
    /// also where the field is missing, as for `$nin`). The inner rows are those the same reader
    /// may read, found in the same statement: no row of the inner class the reader may not read
    /// ever decides whether an outer row matches.
    mutating func innerQuery(_ field: QueryField, _ inner: InnerQuery, depth: Int) throws -> String {
        let test: String
        switch inner.op {
        case .inQuery, .notInQuery:
            guard !field.isColumn else { throw ParseError.invalidQuery("\(inner.op.rawValue) needs a pointer field, not \(field.path)") }
            test = match(field, .pointer, try innerRows(inner, selecting: QueryField(path: "objectId"), depth: depth))
        case .select, .dontSelect:
            test = anyValue(field, try innerRows(inner, selecting: QueryField(path: inner.key ?? "objectId"), depth: depth))
        }
        return inner.op.isNegated ? "NOT COALESCE(\(test), 0)" : test
    }

    /// The `selecting` values of the inner query's rows, as a subquery sharing this query's bounds.
    private mutating func innerRows(_ inner: InnerQuery, selecting column: QueryField, depth: Int) throws -> Comparand {
        var builder = SQLiteQueryBuilder()
        builder.bounds = bounds
        builder.patterns = patterns
        builder.identities = identities
        let selected = column.value(&builder.arguments)
        let filter = try builder.filter(className: inner.className, constraints: inner.constraints, depth: depth)
        let present = column.value(&builder.arguments)
        bounds = builder.bounds
        patterns = builder.patterns
        return .anyRow(select: "SELECT \(selected) FROM objects WHERE \(filter) AND \(present) IS NOT NULL", arguments: builder.arguments)
    }

    /// The field's value, or an element of an array field, is one of `comparand`'s values, compared
    /// as SQLite reads them from the JSON (a number with a number, text with text, an object with
    /// the same object).
    private mutating func anyValue(_ field: QueryField, _ comparand: Comparand) -> String {
        if let column = field.column { return "(\(column)\(comparand.sql(&arguments)))" }
        let direct = field.value(&arguments) + comparand.sql(&arguments)
        arguments += [field.jsonPath, field.jsonPath]
        let elements = "json_each(CASE WHEN json_type(data, ?) = 'array' THEN json_extract(data, ?) ELSE '[]' END)"
        return "(\(direct) OR EXISTS (SELECT 1 FROM \(elements) WHERE json_each.value\(comparand.sql(&arguments))))"
    }
}
