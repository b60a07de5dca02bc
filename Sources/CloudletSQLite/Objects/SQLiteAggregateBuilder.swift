import Cloudlet
import CloudletRuntime
import GRDB

/// Turns an ``AggregatePipeline`` into one SQL statement over the `objects` table: each stage is
/// a `SELECT` over the one before it, as a chain of common table expressions (`s0`, `s1`, …), so
/// the statement does not nest deeper as stages are added. Every stage has the columns of `objects`
/// (`class`, `id`, `created_at`, `updated_at`, `acl`, `data`) and `ord`, the row's place in the
/// order the last `$sort` made; so a `$match` anywhere compiles through ``SQLiteQueryBuilder`` as a
/// query's `where` does, and `$skip`, `$limit` and the answer follow `ord` (SQLite drops an order
/// a subquery does not need itself). A `$group`, `$project` or `$count` makes documents, whose
/// `data` holds the whole row and whose `id` and dates mirror its `objectId`, `createdAt` and
/// `updatedAt`. Field paths are validated names bound as JSON paths, values are bound parameters:
/// nothing from the client is spliced into the SQL text.
struct SQLiteAggregateBuilder {
    private var stages: [String] = []
    private var arguments = StatementArguments()
    /// What every `$match` of the pipeline shares as the levels of one query do: its bounds, its
    /// matchers and its `$text` searches.
    private var filters = SQLiteQueryBuilder()
    /// Whether `data` holds whole documents (after a `$group`, `$project` or `$count`) rather than
    /// the stored fields of objects.
    private var isDocument = false
    /// The names of the members of the last `$group`'s object key, while its rows are the current
    /// ones; a `$sort` on one of them orders by it, as PostgreSQL names the columns of such a key.
    private var keyMembers: [String] = []
    /// The names of the last `$group`'s accumulated fields, while its rows are the current ones.
    private var accumulated: Set<String> = []
    private let className: String

    /// The objects of `className`, before any stage.
    private init(className: String) {
        self.className = className
        append("SELECT class, id, created_at, updated_at, acl, data, 0 AS ord FROM objects WHERE class = ?", [className])
    }

    /// The rows of `pipeline` as one JSON document each (the `doc` column), in order, at most `limit`.
    static func select(_ className: String, _ pipeline: AggregatePipeline, limit: Int) throws -> SQLiteQueryBuilder.Statement {
        var builder = SQLiteAggregateBuilder(className: className)
        for stage in pipeline.stages { try builder.add(stage) }
        let chain = builder.stages.enumerated().map { "s\($0.offset) AS (\($0.element))" }.joined(separator: ", ")
        let sql = "WITH \(chain) SELECT \(builder.document) AS doc FROM \(builder.previous) ORDER BY \(order) LIMIT ?"
        try SQLiteQueryBounds.check(sql: sql)
        return .init(sql: sql, arguments: builder.arguments + [limit], patterns: builder.filters.patterns, searches: builder.filters.searches)
    }

    /// The order rows keep between stages: the last sort's, then creation.
    private static let order = "ord, created_at, id"

    private var previous: String { "s\(stages.count - 1)" }

    private mutating func append(_ sql: String, _ stageArguments: StatementArguments = []) {
        stages.append(sql)
        arguments += stageArguments
    }

    private mutating func add(_ stage: AggregatePipeline.Stage) throws {
        switch stage {
        case .match(let constraints):
            var filter = filters.nested()
            let clause = try filter.filter(className: className, constraints: constraints, depth: 0)
            guard filter.text == nil || !isDocument else {
                throw ParseError.invalidQuery("$text searches the class's objects: put its $match before any $group, $project or $count")
            }
            filters.adopt(filter)
            // Named as the table a query's clause reads, whose inner queries and relations name `objects.id`.
            append("SELECT * FROM \(previous) AS objects WHERE \(clause)", filter.arguments)
        case .sort(let keys):
            var sortArguments = StatementArguments()
            let terms = keys.flatMap { key in
                sortedPaths(key.field).map { Self.sortable(QueryField(path: $0), &sortArguments) + (key.ascending ? " ASC" : " DESC") }
            }
            append(
                """
                SELECT class, id, created_at, updated_at, acl, data, \
                row_number() OVER (ORDER BY \(terms.joined(separator: ", ")), \(Self.order)) AS ord FROM \(previous)
                """, sortArguments)
        case .limit(let count):
            append("SELECT * FROM \(previous) ORDER BY \(Self.order) LIMIT ?", [count])
        case .skip(let count):
            append("SELECT * FROM \(previous) ORDER BY \(Self.order) LIMIT -1 OFFSET ?", [count])
        case .group(let group):
            addGroup(group)
        case .project(let fields):
            var members: [String] = []
            var projectArguments = StatementArguments()
            for field in fields {
                projectArguments += [field.name]
                members.append("?, json(\(json(of: field.source, &projectArguments)))")
            }
            documents("json_patch('{}', json_object(\(members.joined(separator: ", "))))", projectArguments, order: "ord")
        case .count(let name):
            documents("json_object(?, COUNT(*))", [name], order: "0", tail: "HAVING COUNT(*) > 0")
        }
    }

    /// A `$group`: one row per key (none for no rows), `{"objectId": key, accumulated…}`.
    private mutating func addGroup(_ group: AggregateGroup) {
        var groupArguments = StatementArguments()
        var keyArguments = StatementArguments()
        let key: String
        switch group.key {
        case .all: key = "NULL"
        case .field(let path): key = "COALESCE(\(groupKey(path, &keyArguments)), 'null')"
        case .members(let members): key = compoundKey(members, &keyArguments)
        }
        groupArguments += keyArguments
        var members = ["'objectId', json(\(key))"]
        for accumulator in group.accumulators {
            groupArguments += [accumulator.name]
            members.append("?, " + self.accumulator(accumulator, &groupArguments))
        }
        // One group of all rows is grouped by a constant: no rows make no group.
        let grouping = "GROUP BY \(group.key == .all ? "'all'" : key) "
        documents(
            "json_object(\(members.joined(separator: ", ")))", groupArguments, order: "0",
            tail: grouping + "HAVING COUNT(*) > 0", tailArguments: group.key == .all ? [] : keyArguments)
        if case .members(let keyMembers) = group.key { self.keyMembers = keyMembers.map(\.name) }
        accumulated = Set(group.accumulators.map(\.name))
    }

    /// The JSON object a compound key makes of each row: each member's value (a Pointer by its
    /// `objectId`) or the part of its instant it takes.
    private func compoundKey(_ members: [AggregateKeyMember], _ arguments: inout StatementArguments) -> String {
        var parts: [String] = []
        for member in members {
            arguments += [member.name]
            if let datePart = member.datePart {
                parts.append("?, " + Self.extract(datePart, from: Self.sortable(QueryField(path: member.path), &arguments)))
            } else {
                parts.append("?, json(\(groupKey(member.path, &arguments)))")
            }
        }
        return "json_object(\(parts.joined(separator: ", ")))"
    }

    /// The integer `part` of the UTC instant `instant` (ISO 8601 text), as PostgreSQL's `EXTRACT`
    /// gives it: ISO weeks and years from the Thursday of the instant's week, `$dayOfWeek` from 0
    /// (Sunday), `$isoDayOfWeek` from 1 (Monday), seconds rounded.
    private static func extract(_ part: AggregateKeyMember.DatePart, from instant: String) -> String {
        let thursday = "date(\(instant), '-3 days', 'weekday 4')"
        switch part {
        case .year: return "CAST(strftime('%Y', \(instant)) AS INTEGER)"
        case .month: return "CAST(strftime('%m', \(instant)) AS INTEGER)"
        case .dayOfMonth: return "CAST(strftime('%d', \(instant)) AS INTEGER)"
        case .hour: return "CAST(strftime('%H', \(instant)) AS INTEGER)"
        case .minute: return "CAST(strftime('%M', \(instant)) AS INTEGER)"
        case .second: return "CAST(ROUND(strftime('%f', \(instant))) AS INTEGER)"
        case .millisecond: return "CAST(ROUND(strftime('%f', \(instant)) * 1000) AS INTEGER)"
        case .dayOfWeek: return "CAST(strftime('%w', \(instant)) AS INTEGER)"
        case .dayOfYear: return "CAST(strftime('%j', \(instant)) AS INTEGER)"
        case .isoDayOfWeek: return "(CAST(strftime('%w', \(instant)) AS INTEGER) + 6) % 7 + 1"
        case .week: return "(CAST(strftime('%j', \(thursday)) AS INTEGER) - 1) / 7 + 1"
        case .isoWeekYear: return "CAST(strftime('%Y', \(thursday)) AS INTEGER)"
        }
    }

    /// The SQL value an accumulator gives for a group: numbers only for `$sum` and `$avg` (a group
    /// without any sums to 0, averages to null); numbers and strings for `$min` and `$max`.
    private func accumulator(_ accumulator: AggregateAccumulator, _ arguments: inout StatementArguments) -> String {
        guard let path = accumulator.field else {
            arguments += [accumulator.constant]
            return "COUNT(*) * ?"
        }
        let field = QueryField(path: path)
        let isExtreme = accumulator.kind == .min || accumulator.kind == .max
        let value: String
        if !isDocument, let column = field.column {
            value = isExtreme ? column : "NULL"
        } else {
            arguments += [field.jsonPath, field.jsonPath]
            let types = isExtreme ? "'integer', 'real', 'text'" : "'integer', 'real'"
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

    /// The paths a `$sort` on `field` orders by: after a `$group` keyed by an object, the key
    /// (`objectId`) orders member by member, and a member's name (not also an accumulated field's)
    /// orders by that member.
    private func sortedPaths(_ field: String) -> [String] {
        guard !keyMembers.isEmpty else { return [field] }
        if field == "objectId" { return keyMembers.map { "objectId." + $0 } }
        return keyMembers.contains(field) && !accumulated.contains(field) ? ["objectId." + field] : [field]
    }

    /// What a field is ordered by: a Date by its instant, any other value as SQLite orders it.
    private static func sortable(_ field: QueryField, _ arguments: inout StatementArguments) -> String {
        if let column = field.column { return column }
        arguments += [field.jsonPath + ".iso", field.jsonPath]
        return "COALESCE(json_extract(data, ?), json_extract(data, ?))"
    }

    /// Appends a stage of documents: `document` (with `documentArguments`) for each row of the
    /// previous stage, or each group `tail` (with `tailArguments`) makes, in the place `order` gives.
    private mutating func documents(
        _ document: String, _ documentArguments: StatementArguments, order: String, tail: String = "",
        tailArguments: StatementArguments = []
    ) {
        append(
            """
            SELECT ? AS class, json_extract(doc, '$.objectId') AS id, json_extract(doc, '$.createdAt') AS created_at, \
            json_extract(doc, '$.updatedAt') AS updated_at, NULL AS acl, doc AS data, ord \
            FROM (SELECT \(document) AS doc, \(order) AS ord FROM \(previous) \(tail))
            """, [className] + documentArguments + tailArguments)
        isDocument = true
        keyMembers = []
        accumulated = []
    }
}
