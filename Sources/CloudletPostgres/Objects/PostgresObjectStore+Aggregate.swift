import Cloudlet
import CloudletRuntime
import PostgresNIO

extension PostgresObjectStore {
    /// The rows `pipeline` makes of the objects of `className`, as the SQLite store answers them
    /// (``PostgresAggregateCompiler``), as master reads them, each charged to `budget`; 154 past
    /// ``StorageQuery/maximumLimit`` rows. The statement runs within the bound of a pattern's.
    public func aggregate(_ className: String, pipeline: AggregatePipeline, budget: ReadBudget) async throws -> [[String: ParseValue]] {
        let (sql, compiler) = try PostgresAggregateCompiler.select(className, pipeline, schema: schema, limit: StorageQuery.maximumLimit + 1)
        do {
            return try await bounded(compiler, always: true) { connection in
                var results: [[String: ParseValue]] = []
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: compiler.binds), logger: database.logger)
                for try await document in rows.decode(String.self) {
                    try StorageQuery.checkAggregateRows(results.count)
                    try budget.charge(bytes: document.utf8.count + 16)
                    guard let row = try JSONParser.parse(document).objectValue else { throw ParseError.invalidQuery("the pipeline made a row that is not an object") }
                    results.append(row)
                }
                return results
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "22003" {
            throw ParseError.invalidQuery("the pipeline cannot run on this class's data (a $sum or $avg past the largest number?): a number out of range")
        }
    }
}
