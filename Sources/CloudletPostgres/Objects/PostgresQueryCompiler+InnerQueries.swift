import Cloudlet
import CloudletRuntime

extension PostgresQueryCompiler {
    /// An inner query's test of `field`, nested `depth` deep, as the SQLite store's: for `$inQuery`,
    /// the field (an element of it, or a relation's join row) links to one of the inner rows; for
    /// `$select`, its value (or an element of it) equals the `key` of one of them. `$notInQuery` and
    /// `$dontSelect` are the opposite (true also where the field is missing, as for `$nin`). The
    /// inner rows are those the same reader may read, found in the same statement.
    mutating func innerQuery(_ field: PostgresField, _ inner: InnerQuery, depth: Int) throws -> String {
        let test: String
        switch inner.op {
        case .inQuery, .notInQuery:
            guard field.column == nil else { throw ParseError.invalidQuery("\(inner.op.rawValue) needs a pointer field, not \(field.path)") }
            test = links(field, toAnyOf: try innerRows(inner, selecting: "id", depth: depth))
        case .select, .dontSelect:
            let key = PostgresField(path: inner.key ?? "objectId")
            test = anyValue(field, in: try innerRows(inner, selecting: key.column.map { "to_jsonb(\($0))" } ?? key.value, depth: depth))
        }
        return inner.op.isNegated ? "NOT COALESCE(\(test), false)" : test
    }

    /// The `selecting` expression of the inner query's rows that have it (not null, nor JSON's
    /// null, which SQLite's `json_extract` reads as null), as a subquery.
    private mutating func innerRows(_ inner: InnerQuery, selecting expression: String, depth: Int) throws -> String {
        let filter = try filter(className: inner.className, constraints: inner.constraints, depth: depth)
        let present = expression == "id" ? "" : " AND \(expression) <> 'null'::jsonb"
        return "SELECT \(expression) FROM \(table) WHERE \(filter) AND \(expression) IS NOT NULL\(present)"
    }

    /// The field links to an object whose id `rows` selects: it points to it, holds a pointer to it
    /// in an array, or (a top-level field) relates it through a join row.
    private mutating func links(_ field: PostgresField, toAnyOf rows: String) -> String {
        let path = field.value
        var links = """
            SELECT \(path) ->> 'objectId' AS linked UNION ALL SELECT element ->> 'objectId' \
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(\(path)) = 'array' THEN \(path) ELSE '[]'::jsonb END) AS element
            """
        if !field.path.contains(".") {
            links += " UNION ALL SELECT related_id FROM \(relations) WHERE owning_class = \(bind(className)) AND owning_id = id AND field = \(bind(field.path))"
        }
        return "EXISTS (SELECT 1 FROM (\(links)) AS links WHERE linked IN (\(rows)))"
    }

    /// The field's value, or an element of an array field, is one of the values `rows` selects.
    private func anyValue(_ field: PostgresField, in rows: String) -> String {
        if let column = field.column { return "(to_jsonb(\(column)) IN (\(rows)))" }
        let path = field.value
        return "(\(path) IN (\(rows)) OR (jsonb_typeof(\(path)) = 'array' AND EXISTS "
            + "(SELECT 1 FROM jsonb_array_elements(\(path)) AS element WHERE element IN (\(rows)))))"
    }
}
