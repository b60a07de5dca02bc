import Cloudlet
import CloudletRuntime
import GRDB

extension SQLiteQueryBuilder {
    /// An inner query's test of `field`, nested `depth` deep: for `$inQuery`, the field (an element
    /// of it, or a relation's join row) links to one of the inner rows; for `$select`, its value (or an element of
    /// it) equals the `key` of one of them. `$notInQuery` and `$dontSelect` are the opposite (true
    /// also where the field is missing, as for `$nin`). The inner rows are those the same reader
    /// may read, found in the same statement: no row of the inner class the reader may not read
    /// ever decides whether an outer row matches.
    mutating func innerQuery(_ field: QueryField, _ inner: InnerQuery, depth: Int) throws -> String {
        let test: String
        switch inner.op {
        case .inQuery, .notInQuery:
            guard !field.isColumn else { throw ParseError.invalidQuery("\(inner.op.rawValue) needs a pointer field, not \(field.path)") }
            test = links(field, try innerRows(inner, selecting: QueryField(path: "objectId"), depth: depth))
        case .select, .dontSelect:
            test = anyValue(field, try innerRows(inner, selecting: QueryField(path: inner.key ?? "objectId"), depth: depth))
        }
        return inner.op.isNegated ? "NOT COALESCE(\(test), 0)" : test
    }

    /// The field links to an object whose id `comparand` holds: it points to it, holds a pointer to
    /// it in an array, or (a top-level field) relates it through a join row. The row's links are
    /// gathered in one correlated subquery and tested once, so the inner query's SQL appears once
    /// at each level of nesting, and SQLite evaluates it once per statement.
    private mutating func links(_ field: QueryField, _ comparand: Comparand) -> String {
        arguments += [field.jsonPath + ".objectId", field.jsonPath, field.jsonPath]
        var links = """
            SELECT json_extract(data, ?) AS linked UNION ALL SELECT json_extract(json_each.value, '$.objectId') \
            FROM json_each(CASE WHEN json_type(data, ?) = 'array' THEN json_extract(data, ?) ELSE '[]' END)
            """
        if !field.path.contains(".") {
            arguments += [className, field.path]
            links += " UNION ALL SELECT related_id FROM relations WHERE owning_class = ? AND owning_id = objects.id AND field = ?"
        }
        return "EXISTS (SELECT 1 FROM (\(links)) WHERE linked\(comparand.sql(&arguments)))"
    }

    /// The `selecting` values of the inner query's rows, as a subquery sharing this query's bounds.
    private mutating func innerRows(_ inner: InnerQuery, selecting column: QueryField, depth: Int) throws -> Comparand {
        var builder = nested()
        let selected = column.value(&builder.arguments)
        let filter = try builder.filter(className: inner.className, constraints: inner.constraints, depth: depth)
        let present = column.value(&builder.arguments)
        adopt(builder)
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
