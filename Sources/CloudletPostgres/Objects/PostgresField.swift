import CloudletRuntime

/// A field named in a query: one of the object's columns, or a path into its JSON fields.
struct PostgresField {
    let path: String

    /// The column behind `objectId`, `createdAt` and `updatedAt`.
    var column: String? { QueryTerms.column(path) }

    /// The field's JSON value: `data #> '{a,b}'` (names are validated identifiers, so need no quoting).
    var value: String {
        "(data #> '{\(path.split(separator: ".").joined(separator: ","))}')"
    }

    /// What the field sorts by, as SQLite's store sorts it: missing and null first, then numbers
    /// and Booleans, then text (a Date by its `iso`, an array or object by its JSON text).
    var sortKeys: [String] {
        let type = "jsonb_typeof(\(value))"
        let isDate = "jsonb_typeof(\(value) -> 'iso') = 'string'"
        return [
            "(CASE WHEN \(type) IS NULL OR \(type) = 'null' THEN 0 WHEN \(type) IN ('number', 'boolean') THEN 1 ELSE 2 END)",
            "(CASE \(type) WHEN 'number' THEN (\(value))::numeric WHEN 'boolean' THEN (CASE WHEN (\(value))::boolean THEN 1 ELSE 0 END) END)",
            "(CASE WHEN \(isDate) THEN \(value) ->> 'iso' WHEN \(type) = 'string' THEN \(value) #>> '{}' WHEN \(type) IN ('array', 'object') THEN (\(value))::text END) COLLATE \"C\"",
        ]
    }
}
