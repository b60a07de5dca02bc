import Cloudlet
import CloudletRuntime
import PostgresNIO

extension PostgresObjectStore {
    /// The distinct values of `field` among the objects of `className` matching `constraints`, as
    /// the SQLite store answers them: an array field's elements counted one by one, null and
    /// missing values left out, as master reads them, each charged to `budget`; 154 past
    /// ``StorageQuery/maximumLimit`` values.
    public func distinct(_ className: String, field path: String, constraints: [String: ParseValue], budget: ReadBudget) async throws -> [ParseValue] {
        var compiler = PostgresQueryCompiler(schema: schema)
        let sql = try compiler.distinct(className, field: PostgresField(path: path), constraints: constraints, limit: StorageQuery.maximumLimit + 1)
        let values = try await bounded(compiler) { connection in
            var values: [ParseValue] = []
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: compiler.binds), logger: database.logger)
            for try await element in rows.decode(String.self) {
                try StorageQuery.checkAggregateRows(values.count)
                try budget.charge(bytes: element.utf8.count + 16)
                values.append(try JSONParser.parse(element))
            }
            return values
        }
        guard path == "createdAt" || path == "updatedAt" else { return values }
        return values.map { value in value.stringValue.flatMap(ParseDate.date(from:)).map { .date($0) } ?? value }
    }
}

extension PostgresQueryCompiler {
    /// The distinct values (as JSON text) of `field` in the rows of `className` matching
    /// `constraints`, as master reads them, at most `limit`.
    mutating func distinct(_ className: String, field: PostgresField, constraints: [String: ParseValue], limit: Int) throws -> String {
        let filter = try filter(className: className, constraints: constraints, depth: 0)
        let value = field.column.map { "to_jsonb(\($0))" } ?? field.value
        return try checked(
            """
            SELECT DISTINCT element::text FROM (SELECT CASE WHEN jsonb_typeof(\(value)) = 'array' THEN \(value) ELSE jsonb_build_array(\(value)) END AS elements \
            FROM \(table) WHERE \(filter)) AS matched, jsonb_array_elements(matched.elements) AS element WHERE element <> 'null'::jsonb LIMIT \(bind(limit))
            """)
    }
}
