import Cloudlet
import CloudletRuntime

/// Turns an ``AggregatePipeline`` into one SQL statement over an app schema's `objects` table,
/// with the meaning the SQLite store's pipeline builder gives it (a differential test runs both on
/// one corpus): each stage is a `SELECT` over the one before it, as a chain of common table
/// expressions (`s0`, `s1`, …). Every stage has the columns of `objects` (`class`, `id`,
/// `created_at`, `updated_at`, `acl`, `data`) and `ord`, the row's place in the order the last
/// `$sort` made, so a `$match` anywhere compiles through ``PostgresQueryCompiler`` as a query's
/// `where` does. A `$group`, `$project` or `$count` makes documents, whose `data` holds the whole
/// row and whose `id` and dates mirror its `objectId`, `createdAt` and `updatedAt`; rows of
/// documents order by those members' JSON values, as SQLite orders the typed values it extracts.
/// Field paths are validated names, values bound parameters.
struct PostgresAggregateCompiler {
    private var stages: [String] = []
    /// The query compiler every `$match` shares, as the levels of one query do: its binds and bounds.
    private(set) var compiler: PostgresQueryCompiler
    /// Whether `data` holds whole documents (after a `$group`, `$project` or `$count`).
    private var isDocument = false
    /// The names of the members of the last `$group`'s object key, while its rows are the current ones.
    private var keyMembers: [String] = []
    /// The names of the last `$group`'s accumulated fields, while its rows are the current ones.
    private var accumulated: Set<String> = []
    private let className: String

    /// The objects of `className` in `schema`, before any stage.
    private init(_ className: String, schema: PostgresAppSchema) {
        self.className = className
        compiler = PostgresQueryCompiler(schema: schema)
        stages.append("SELECT class, id, created_at, updated_at, acl, data, 0::bigint AS ord FROM \(compiler.table) WHERE class = \(compiler.bind(className))")
    }

    /// The rows of `pipeline` as one JSON document each, in order, at most `limit`; and the compiler
    /// whose binds the statement takes.
    static func select(_ className: String, _ pipeline: AggregatePipeline, schema: PostgresAppSchema, limit: Int) throws -> (String, PostgresQueryCompiler) {
        var builder = PostgresAggregateCompiler(className, schema: schema)
        for stage in pipeline.stages { try builder.add(stage) }
        let chain = builder.stages.enumerated().map { "s\($0.offset) AS (\($0.element))" }.joined(separator: ", ")
        let document = builder.isDocument ? "data" : "data || jsonb_build_object('objectId', id, 'createdAt', created_at, 'updatedAt', updated_at)"
        let limit = builder.compiler.bind(limit)
        let sql = "WITH \(chain) SELECT (\(document))::text FROM \(builder.previous) ORDER BY \(builder.order) LIMIT \(limit)"
        return (try builder.compiler.checked(sql), builder.compiler)
    }

    private var previous: String { "s\(stages.count - 1)" }

    /// The order rows keep between stages: the last sort's, then creation, then id.
    private var order: String {
        guard isDocument else { return #"ord, created_at COLLATE "C", id COLLATE "C""# }
        return (["ord"] + PostgresField(path: "createdAt").sortKeys + PostgresField(path: "objectId").sortKeys).joined(separator: ", ")
    }

    private mutating func add(_ stage: AggregatePipeline.Stage) throws {
        switch stage {
        case .match(let constraints):
            let searches = compiler.textFields.count
            let clause = try compiler.filter(className: className, constraints: constraints, depth: 0)
            guard compiler.textFields.count == searches || !isDocument else {
                throw ParseError.invalidQuery("$text searches the class's objects: put its $match before any $group, $project or $count")
            }
            // Named as the table a query's clause reads, whose inner queries and relations name its `id`.
            stages.append("SELECT * FROM \(previous) AS objects WHERE \(clause)")
        case .sort(let keys):
            let terms = keys.flatMap { key in
                sortedPaths(key.field).flatMap { path in sortKeys(PostgresField(path: path)).map { $0 + (key.ascending ? " ASC" : " DESC") } }
            }
            stages.append(
                "SELECT class, id, created_at, updated_at, acl, data, row_number() OVER (ORDER BY \((terms + [order]).joined(separator: ", "))) AS ord FROM \(previous)")
        case .limit(let count):
            stages.append("SELECT * FROM \(previous) ORDER BY \(order) LIMIT \(compiler.bind(count))")
        case .skip(let count):
            stages.append("SELECT * FROM \(previous) ORDER BY \(order) OFFSET \(compiler.bind(count))")
        case .group(let group):
            addGroup(group)
        case .project(let fields):
            let members = fields.map { "\(compiler.bind($0.name))::text, \(json(of: $0.source))" }
            documents("jsonb_strip_nulls(jsonb_build_object(\(members.joined(separator: ", "))))", order: "ord")
        case .count(let name):
            documents("jsonb_build_object(\(compiler.bind(name))::text, count(*))", order: "0", tail: "HAVING count(*) > 0")
        }
    }

    /// A `$group`: one row per key (none for no rows), `{"objectId": key, accumulated…}`.
    private mutating func addGroup(_ group: AggregateGroup) {
        let key: String
        switch group.key {
        case .all: key = "NULL::jsonb"
        case .field(let path): key = "COALESCE(\(groupKey(path)), 'null'::jsonb)"
        case .members(let members): key = compoundKey(members)
        }
        var members = ["'objectId', \(key)"]
        for accumulator in group.accumulators {
            members.append("\(compiler.bind(accumulator.name))::text, " + self.accumulator(accumulator))
        }
        // One group of all rows is grouped by nothing: no rows make no group.
        let grouping = group.key == .all ? "" : "GROUP BY \(key) "
        documents("jsonb_build_object(\(members.joined(separator: ", ")))", order: "0", tail: grouping + "HAVING count(*) > 0")
        if case .members(let keyMembers) = group.key { self.keyMembers = keyMembers.map(\.name) }
        accumulated = Set(group.accumulators.map(\.name))
    }

    /// The object a compound key makes of each row: each member's value (a Pointer by its
    /// `objectId`) or the part of its instant it takes.
    private mutating func compoundKey(_ members: [AggregateKeyMember]) -> String {
        let parts = members.map { member in
            let value = member.datePart.map { Self.extract($0, from: instant(PostgresField(path: member.path))) } ?? groupKey(member.path)
            return "\(compiler.bind(member.name))::text, \(value)"
        }
        return "jsonb_build_object(\(parts.joined(separator: ", ")))"
    }

    /// The UTC instant a field holds (a Date's `iso`, or ISO 8601 text), as a `timestamp`; NULL for
    /// anything else.
    private func instant(_ field: PostgresField) -> String {
        let text = field.column.flatMap { isDocument ? nil : $0 } ?? "COALESCE(\(field.value) ->> 'iso', \(field.value) #>> '{}')"
        let iso = #"'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$'"#
        return "(CASE WHEN \(text) ~ \(iso) THEN (\(text))::timestamptz AT TIME ZONE 'UTC' END)"
    }

    /// The integer `part` of the UTC timestamp `instant`, as the SQLite store computes it: ISO
    /// weeks and years, `$dayOfWeek` from 0 (Sunday), `$isoDayOfWeek` from 1 (Monday), seconds rounded.
    private static func extract(_ part: AggregateKeyMember.DatePart, from instant: String) -> String {
        let field: String
        switch part {
        case .year: field = "YEAR"
        case .month: field = "MONTH"
        case .dayOfMonth: field = "DAY"
        case .hour: field = "HOUR"
        case .minute: field = "MINUTE"
        case .second: return "round(EXTRACT(SECOND FROM \(instant)))::integer"
        case .millisecond: return "round(EXTRACT(MILLISECONDS FROM \(instant)))::integer"
        case .dayOfWeek: field = "DOW"
        case .dayOfYear: field = "DOY"
        case .isoDayOfWeek: field = "ISODOW"
        case .week: field = "WEEK"
        case .isoWeekYear: field = "ISOYEAR"
        }
        return "EXTRACT(\(field) FROM \(instant))::integer"
    }

    /// The value an accumulator gives for a group, as SQLite's: numbers only for `$sum` and `$avg`
    /// (a group without any sums to 0, averages to null); for `$min` and `$max`, numbers and
    /// strings, every number below every string. Numbers are summed as `float8`, as SQLite sums
    /// them, and written with its 15 significant digits (a `numeric` made of a `float8` has them).
    private mutating func accumulator(_ accumulator: AggregateAccumulator) -> String {
        guard let path = accumulator.field else { return "to_jsonb((count(*) * \(compiler.bind(accumulator.constant))::float8)::numeric)" }
        let field = PostgresField(path: path)
        if !isDocument, let column = field.column {
            switch accumulator.kind {
            case .sum: return "to_jsonb(0::float8)"
            case .avg: return "NULL::jsonb"
            case .min: return #"to_jsonb(min(\#(column) COLLATE "C"))"#
            case .max: return #"to_jsonb(max(\#(column) COLLATE "C"))"#
            }
        }
        let value = field.value
        let number = "(CASE WHEN jsonb_typeof(\(value)) = 'number' THEN (\(value))::float8 END)"
        let text = #"(CASE WHEN jsonb_typeof(\#(value)) = 'string' THEN (\#(value) #>> '{}') END) COLLATE "C""#
        switch accumulator.kind {
        case .sum: return "to_jsonb(COALESCE(sum(\(number)), 0)::numeric)"
        case .avg: return "to_jsonb(avg(\(number))::numeric)"
        case .min: return "COALESCE(to_jsonb(min(\(number))::numeric), to_jsonb(min(\(text))))"
        case .max: return "COALESCE(to_jsonb(max(\(text))), to_jsonb(max(\(number))::numeric))"
        }
    }

    /// The value a group is keyed by: a Pointer by its `objectId`, as Parse groups it.
    private func groupKey(_ path: String) -> String {
        let field = PostgresField(path: path)
        if !isDocument, let column = field.column { return "to_jsonb(\(column))" }
        let value = field.value
        return "(CASE WHEN \(value) ->> '__type' = 'Pointer' THEN \(value) -> 'objectId' ELSE \(value) END)"
    }

    /// The value at `path` of the current row (SQL NULL when it has none).
    private func json(of path: String) -> String {
        let field = PostgresField(path: path)
        if !isDocument, let column = field.column { return "to_jsonb(\(column))" }
        return field.value
    }

    /// What a field orders by: a column, or its JSON value as ``PostgresField/sortKeys`` orders it.
    private func sortKeys(_ field: PostgresField) -> [String] {
        if !isDocument, let column = field.column { return [#"\#(column) COLLATE "C""#] }
        // A document's `objectId` and dates are members like any other.
        return field.sortKeys
    }

    /// The paths a `$sort` on `field` orders by: after a `$group` keyed by an object, the key
    /// (`objectId`) orders member by member, and a member's name (not also an accumulated field's)
    /// orders by that member.
    private func sortedPaths(_ field: String) -> [String] {
        guard !keyMembers.isEmpty else { return [field] }
        if field == "objectId" { return keyMembers.map { "objectId." + $0 } }
        return keyMembers.contains(field) && !accumulated.contains(field) ? ["objectId." + field] : [field]
    }

    /// Appends a stage of documents: `document` for each row of the previous stage, or each group
    /// `tail` makes, in the place `order` gives.
    private mutating func documents(_ document: String, order: String, tail: String = "") {
        stages.append(
            """
            SELECT \(compiler.bind(className))::text AS class, doc ->> 'objectId' AS id, doc ->> 'createdAt' AS created_at, \
            doc ->> 'updatedAt' AS updated_at, NULL::jsonb AS acl, doc AS data, ord \
            FROM (SELECT \(document) AS doc, \(order)::bigint AS ord FROM \(previous) \(tail)) AS documents
            """)
        isDocument = true
        keyMembers = []
        accumulated = []
    }
}
