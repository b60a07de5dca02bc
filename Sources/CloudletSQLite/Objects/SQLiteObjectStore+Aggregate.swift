import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

extension SQLiteObjectStore {
    public func distinct(
        _ className: String, field: String, constraints: [String: ParseValue], budget: ReadBudget
    ) async throws -> [ParseValue] {
        let statement = try SQLiteDistinct.select(className, field: field, constraints: constraints, limit: StorageQuery.maximumLimit + 1)
        let values = try await reading(statement, what: "the distinct") { db in
            var values: [ParseValue] = []
            let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: statement.arguments)
            while let row = try rows.next() {
                try StorageQuery.checkAggregateRows(values.count)
                let type: String = row[0]
                let value: DatabaseValue = row[1]
                try budget.charge(bytes: (String.fromDatabaseValue(value)?.utf8.count ?? 8) + 16)
                values.append(try SQLiteDistinct.value(type: type, value))
            }
            return values
        }
        guard field == "createdAt" || field == "updatedAt" else { return values }
        return values.map { value in value.stringValue.flatMap(ParseDate.date(from:)).map { .date($0) } ?? value }
    }

    public func aggregate(_ className: String, pipeline: AggregatePipeline, budget: ReadBudget) async throws -> [[String: ParseValue]] {
        let statement = try SQLiteAggregateBuilder.select(className, pipeline, limit: StorageQuery.maximumLimit + 1)
        do {
            return try await reading(statement, what: "the pipeline") { db in
                var results: [[String: ParseValue]] = []
                let rows = try String.fetchCursor(db, sql: statement.sql, arguments: statement.arguments)
                while let document = try rows.next() {
                    try StorageQuery.checkAggregateRows(results.count)
                    try budget.charge(bytes: document.utf8.count + 16)
                    guard let row = (try? JSONParser.parse(document))?.objectValue else { throw Self.cannotRun("a number out of range") }
                    results.append(row)
                }
                return results
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            // A statement that compiled but cannot run on this data: a sum past the largest number
            // (SQLite then reads its own JSON as malformed). Busy, full or broken databases stay 5xx.
            throw Self.cannotRun(error.message ?? "SQLite refused it")
        }
    }

    private static func cannotRun(_ reason: String) -> ParseError {
        ParseError.invalidQuery("the pipeline cannot run on this class's data (a $sum or $avg past the largest number?): \(reason)")
    }

    /// `body` on a read connection, run as every statement of a query runs
    /// (``SQLiteAppDatabase/read(_:_:)``) and within the database's bound on an aggregate's
    /// instructions.
    private func reading<Result: Sendable>(
        _ statement: SQLiteQueryBuilder.Statement, what: String, _ body: @escaping @Sendable (Database) throws -> Result
    ) async throws -> Result {
        let instructions = database.aggregateInstructions
        return try await database.read(statement) { db in
            try SQLiteWorkBound.running(db, instructions: instructions, what: what) { try body(db) }
        }
    }

    /// Throws 154 once `count` rows have been read already and there are more.
}

/// The SQL of `distinct`: each matching object's value of the field, or each element when it holds
/// an array, as (JSON type, value) pairs, null left out.
enum SQLiteDistinct {
    static func select(
        _ className: String, field path: String, constraints: [String: ParseValue], limit: Int
    ) throws -> SQLiteQueryBuilder.Statement {
        var builder = SQLiteQueryBuilder()
        let filter = try builder.filter(className: className, constraints: constraints, depth: 0)
        let field = QueryField(path: path)
        var arguments = StatementArguments()
        let elements: String
        if let column = field.column {
            elements = "json_array(\(column))"
        } else {
            arguments += [field.jsonPath, field.jsonPath, field.jsonPath]
            elements = "CASE WHEN json_type(data, ?) = 'array' THEN json_extract(data, ?) ELSE json_array(data -> ?) END"
        }
        let sql = """
            SELECT DISTINCT element.type, element.value FROM (SELECT \(elements) AS elements FROM objects WHERE \(filter)) AS matched, \
            json_each(matched.elements) AS element WHERE element.type <> 'null' LIMIT ?
            """
        try SQLiteQueryBounds.check(sql: sql)
        return .init(sql: sql, arguments: arguments + builder.arguments + [limit], patterns: builder.patterns, searches: builder.searches)
    }

    /// The value json_each gave as `type` and `value`.
    static func value(type: String, _ value: DatabaseValue) throws -> ParseValue {
        switch type {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "integer", "real": return .number(Double.fromDatabaseValue(value) ?? 0)
        case "text": return .string(String.fromDatabaseValue(value) ?? "")
        default: return try JSONParser.parse(String.fromDatabaseValue(value) ?? "null")
        }
    }
}
