import Cloudlet
import CloudletRuntime
import GRDB

/// Turns an ``AggregatePipeline`` into one SQL statement over the `objects` table: each stage is
/// a `SELECT` over the one before it. Every level has the columns of `objects` (`class`, `id`,
/// `created_at`, `updated_at`, `acl`, `data`), so a `$match` anywhere compiles through
/// ``SQLiteQueryBuilder`` as a query's `where` does; a `$group`, `$project` or `$count` makes
/// documents, whose `data` holds the whole row and whose `id` and dates mirror its `objectId`,
/// `createdAt` and `updatedAt`. Field paths are validated names bound as JSON paths, values are bound
/// parameters: nothing from the client is spliced into the SQL text.
struct SQLiteAggregateBuilder {
    /// The statement so far: its SQL, arguments (in text order) and `$regex` programs.
    private(set) var statement: SQLiteQueryBuilder.Statement
    /// Whether `data` holds whole documents (after a `$group`, `$project` or `$count`) rather than
    /// the stored fields of objects.
    private var isDocument = false
    private let className: String

    /// The objects of `className`, before any stage.
    init(className: String) {
        self.className = className
        statement = .init(
            sql: "SELECT class, id, created_at, updated_at, acl, data FROM objects WHERE class = ?", arguments: [className], patterns: [:])
    }

    /// The rows of `pipeline` as one JSON document each (the `doc` column), at most `limit`.
    static func select(_ className: String, _ pipeline: AggregatePipeline, limit: Int) throws -> SQLiteQueryBuilder.Statement {
        var builder = SQLiteAggregateBuilder(className: className)
        for stage in pipeline.stages { try builder.add(stage) }
        var final = builder.wrapped("SELECT \(builder.document) AS doc FROM", "LIMIT ?")
        final.arguments += [limit]
        try SQLiteQueryBounds.check(sql: final.sql)
        return final
    }

    private mutating func add(_ stage: AggregatePipeline.Stage) throws {
        switch stage {
        case .match(let constraints):
            var filter = SQLiteQueryBuilder()
            let clause = try filter.filter(className: className, constraints: constraints, depth: 0)
            statement = wrapped("SELECT * FROM", "WHERE \(clause)", filter.arguments)
            statement.patterns.merge(filter.patterns) { first, _ in first }
        case .sort(let field, let ascending):
            var arguments = StatementArguments()
            let expression = Self.sortable(QueryField(path: field), &arguments)
            statement = wrapped("SELECT * FROM", "ORDER BY \(expression) \(ascending ? "ASC" : "DESC")", arguments)
        case .limit(let count):
            statement = wrapped("SELECT * FROM", "LIMIT ?", [count])
        case .skip(let count):
            statement = wrapped("SELECT * FROM", "LIMIT -1 OFFSET ?", [count])
        case .group(let group):
            addGroup(group)
        case .project(let fields):
            var arguments = StatementArguments()
            let members = fields.map { field in
                arguments += [field.name]
                return "?, json(\(json(of: field.source, &arguments)))"
            }
            documents("json_patch('{}', json_object(\(members.joined(separator: ", "))))", arguments)
        case .count(let name):
            documents("json_object(?, COUNT(*))", [name], after: "HAVING COUNT(*) > 0")
        }
    }

    private mutating func addGroup(_ group: AggregateGroup) {
        var arguments = StatementArguments()
        var members = ["'objectId'"]
        var key = "NULL"
        var keyArguments = StatementArguments()
        if let field = group.key {
            key = "COALESCE(\(groupKey(field, &keyArguments)), 'null')"
            arguments += keyArguments
        }
        members[0] += ", json(\(key))"
        for accumulator in group.accumulators {
            arguments += [accumulator.name]
            members.append("?, " + self.accumulator(accumulator, &arguments))
        }
        var tail = "HAVING COUNT(*) > 0"
        if group.key != nil {
            tail = "GROUP BY \(key) " + tail
        }
        documents("json_object(\(members.joined(separator: ", ")))", arguments, after: tail, afterArguments: keyArguments)
    }

    /// The SQL value an accumulator gives for a group: numbers only for `$sum` and `$avg` (a group
    /// without any sums to 0, averages to null); numbers and strings for `$min` and `$max`.
    private func accumulator(_ accumulator: AggregateAccumulator, _ arguments: inout StatementArguments) -> String {
        guard let path = accumulator.field else {
            arguments += [accumulator.constant]
            return "COUNT(*) * ?"
        }
        let field = QueryField(path: path)
        let types: String
        switch accumulator.kind {
        case .sum, .avg: types = "'integer', 'real'"
        case .min, .max: types = "'integer', 'real', 'text'"
        }
        let value: String
        if !isDocument, let column = field.column {
            value = accumulator.kind == .min || accumulator.kind == .max ? column : "NULL"
        } else {
            arguments += [field.jsonPath, field.jsonPath]
            value = "CASE WHEN json_type(data, ?) IN (\(types)) THEN json_extract(data, ?) END"
        }
        switch accumulator.kind {
        case .sum: return "TOTAL(\(value))"
        case .avg: return "AVG(\(value))"
        case .min: return "MIN(\(value))"
        case .max: return "MAX(\(value))"
        }
    }

    /// The JSON of the value a group is keyed by: a Pointer by its `objectId`, as Parse groups it.
    private func groupKey(_ path: String, _ arguments: inout StatementArguments) -> String {
        let field = QueryField(path: path)
        if !isDocument, let column = field.column { return "json_quote(\(column))" }
        arguments += [field.jsonPath + ".__type", field.jsonPath + ".objectId", field.jsonPath]
        return "CASE WHEN json_extract(data, ?) = 'Pointer' THEN data -> ? ELSE data -> ? END"
    }

    /// The JSON of the value at `path` of the current row (SQL NULL when it has none).
    private func json(of path: String, _ arguments: inout StatementArguments) -> String {
        let field = QueryField(path: path)
        if !isDocument, let column = field.column { return "json_quote(\(column))" }
        arguments += [field.jsonPath]
        return "data -> ?"
    }

    /// The whole row as a JSON document: an object's fields with its id and dates.
    private var document: String {
        isDocument ? "data" : "json_set(data, '$.objectId', id, '$.createdAt', created_at, '$.updatedAt', updated_at)"
    }

    /// What a field is ordered by: a Date by its instant, any other value as SQLite orders it.
    private static func sortable(_ field: QueryField, _ arguments: inout StatementArguments) -> String {
        if let column = field.column { return column }
        arguments += [field.jsonPath + ".iso", field.jsonPath]
        return "COALESCE(json_extract(data, ?), json_extract(data, ?))"
    }

    /// `head (statement) tail`, its arguments in text order: `headArguments`, the statement's, `tailArguments`.
    private func wrapped(
        _ head: String, _ tail: String, _ tailArguments: StatementArguments = [], headArguments: StatementArguments = []
    ) -> SQLiteQueryBuilder.Statement {
        SQLiteQueryBuilder.Statement(
            sql: "\(head) (\(statement.sql)) \(tail)", arguments: headArguments + statement.arguments + tailArguments,
            patterns: statement.patterns)
    }

    /// Makes the next level documents: `document` (with `arguments`) for each row of the current
    /// one, grouped or filtered by `tail` (with `afterArguments`).
    private mutating func documents(
        _ document: String, _ arguments: StatementArguments, after tail: String = "", afterArguments: StatementArguments = []
    ) {
        let rows = wrapped("SELECT \(document) AS doc FROM", tail, afterArguments, headArguments: arguments)
        statement = SQLiteQueryBuilder.Statement(
            sql: """
                SELECT ? AS class, json_extract(doc, '$.objectId') AS id, json_extract(doc, '$.createdAt') AS created_at, \
                json_extract(doc, '$.updatedAt') AS updated_at, NULL AS acl, doc AS data FROM (\(rows.sql))
                """,
            arguments: [className] + rows.arguments, patterns: rows.patterns)
        isDocument = true
    }
}
