import Cloudlet
import CloudletRuntime
import GRDB

/// Turns a Parse query into SQL over the `objects` table. Values go in as bound parameters; the
/// class name and the paths of the fields that equalities, comparisons and the order test go in as
/// quoted literals (validated names, see ``SQLiteLiteral``), so that the indexes made through
/// `/schemas` serve them. Lists (`$in`, `$nin`, `$all`, `$containedBy`) are bound as one JSON array
/// each, and long `$or`/`$and` lists are nested as balanced trees, so that no query reaches
/// SQLite's expression depth limit. Inner queries (`$inQuery`, `$select`, …) are subqueries of the
/// same statement, with the same reader.
/// A query past one of the ``QueryBounds`` is refused (102) as it compiles.
struct SQLiteQueryBuilder: SQLWhereCompiling {
    /// A term of the `where` compiles to SQL text.
    typealias Clause = String

    /// The most results one query returns, as on Parse.com.
    static let maximumLimit = StorageQuery.maximumLimit

    var arguments = StatementArguments()
    /// What the query has used of its bounds so far, inner queries included.
    var bounds = QueryBounds()
    var patterns: [Int64: any SQLiteRowMatcher] = [:]
    /// The reader's ACL identities, for the outer query and every inner one; nil reads as master.
    var identities: [String]?
    /// The class whose rows this builder's filter selects.
    var className = ""
    /// The distance a `$nearSphere` orders the results by, nearest first, and its arguments.
    var distanceOrder: (sql: String, arguments: StatementArguments)?
    /// This query's `$text` (one per query; an inner query is a query of its own), which `$score` ranks by.
    var text: TextConstraint?
    /// Every `$text` of the statement, inner queries' too.
    var searches: [TextConstraint] = []
    /// The reader's ACL test and its arguments, repeated in front of every `$regex` and `$text`
    /// check so that a matcher never runs on a row the reader may not see (SQLite may test the other terms of a
    /// WHERE in any order; a CASE is evaluated in order).
    var readable: (sql: String, arguments: StatementArguments)?

    /// The rows of `query`, each as `columns` of `objects` (by default the whole object), and
    /// `text_score` when the query asks for `$score`.
    static func select(_ query: StorageQuery, columns: String = "id, created_at, updated_at, acl, data") throws -> Statement {
        var builder = SQLiteQueryBuilder()
        let filter = try builder.filter(query)
        var joined = StatementArguments()
        let scores = needsScore(query.query) ? (", hits.text_score", try builder.textScoreJoin(&joined)) : ("", "")
        let order = try builder.orderClause(query.query.order)
        let limit = min(max(query.query.limit, 0), maximumLimit)
        guard query.query.skip >= 0 else { throw ParseError.invalidQuery("skip must not be negative") }
        builder.arguments = joined + builder.arguments + [limit, query.query.skip]
        return try builder.statement(
            "SELECT \(columns)\(scores.0) FROM objects\(scores.1) WHERE \(filter) ORDER BY \(order) LIMIT ? OFFSET ?")
    }

    static func count(_ query: StorageQuery) throws -> Statement {
        var builder = SQLiteQueryBuilder()
        let filter = try builder.filter(query)
        return try builder.statement("SELECT COUNT(*) FROM objects WHERE \(filter)")
    }

    private func statement(_ sql: String) throws -> Statement {
        try SQLiteQueryBounds.check(sql: sql)
        return Statement(sql: sql, arguments: arguments, patterns: patterns, searches: searches)
    }

    private mutating func filter(_ query: StorageQuery) throws -> String {
        identities = query.readerIdentities
        return try filter(className: query.query.className, constraints: query.query.constraints, depth: 0)
    }

    /// The rows of `className` the reader may read that match `constraints`, nested `depth` deep.
    mutating func filter(className: String, constraints: [String: ParseValue], depth: Int) throws -> String {
        self.className = className
        var clauses = ["class = \(SQLiteLiteral.text(className))"]
        if let identities {
            let marks = Array(repeating: "?", count: identities.count).joined(separator: ", ")
            let test = "(acl IS NULL OR EXISTS (SELECT 1 FROM json_each(acl) WHERE key IN (\(marks)) AND json_extract(value, '$.read') = 1))"
            readable = (test, StatementArguments(identities))
            arguments += StatementArguments(identities)
            clauses.append(test)
        }
        clauses.append(try clause(for: constraints, depth: depth))
        return clauses.joined(separator: " AND ")
    }

    /// `parts` joined by `AND` or `OR` as a balanced tree: depth log2(n), not n.
    static func joined(_ parts: some Collection<String>, _ connective: String) -> String {
        guard parts.count > 1 else { return parts.first ?? (connective == "AND" ? "1" : "0") }
        let middle = parts.index(parts.startIndex, offsetBy: parts.count / 2)
        return "(" + joined(parts[..<middle], connective) + " \(connective) " + joined(parts[middle...], connective) + ")"
    }

    // MARK: - Constraints

    func field(_ path: String) -> QueryField {
        QueryField(path: path)
    }

    static let falseLiteral = "0"

    mutating func presence(_ field: QueryField, _ exists: Bool) -> String {
        field.isColumn ? (exists ? "1" : "0") : (exists ? "" : "NOT ") + "(\(field.type(&arguments)) IS NOT NULL)"
    }

    /// `field = value`, where a value matches only values of its own JSON type; for an array field,
    /// also true when the array holds such an element.
    mutating func equality(_ field: QueryField, _ value: ParseValue) throws -> String {
        if case .null = value { return field.isColumn ? "0" : "(\(field.value(&arguments)) IS NULL)" }
        if let column = field.column {
            arguments += [try columnOperand(field, value)]
            return "(\(column) = ?)"
        }
        if let geo = try geoEquality(field, value) { return geo }
        let operand = try Operand(value, field: field)
        return match(field, operand.kind, operand.bound.map { .value(Operand.databaseValue($0)) })
    }

    /// The field holds a value of `kind` equal to `comparand` (any such value when nil), or, for
    /// an array field, an element that is (or, for a Pointer, a relation field relates it). Each
    /// branch of the `OR` names the class and tests what an index serves: the field's
    /// ``QueryField/comparable(_:)`` value; for arrays its ``QueryField/sortKey`` bounded (an
    /// array's JSON text starts with `[`) or its ``QueryField/linkKey``; a relation's objects by id.
    mutating func match(_ field: QueryField, _ kind: Operand.Kind, _ comparand: Comparand?) -> String {
        // The value first: a row whose value differs is left after one test, not two.
        let types = kind.types.map { "'\($0)'" }.joined(separator: ",")
        var direct = "(\(field.jsonType(suffix: kind.suffix)) IN (\(types)))"
        if let comparand { direct = "(\(field.comparable(kind))" + comparand.sql(&arguments) + " AND \(direct))" }
        guard kind.canBeElement else { return direct }
        var branches = [direct]
        if kind == .pointer, let comparand, let relation = relationMatch(field, comparand) { branches.append(relation) }
        let elementTypes = kind.suffix.isEmpty ? kind.types : ["object"]
        var test = "json_each.type IN (\(elementTypes.map { "'\($0)'" }.joined(separator: ",")))"
        if let comparand {
            test += " AND " + (kind.suffix.isEmpty ? "json_each.value" : "json_extract(json_each.value, '$\(kind.suffix)')")
            test += comparand.sql(&arguments)
        }
        // Compact: an `$or` of hundreds of these stays within the bound on a statement's SQL.
        let array = kind == .pointer ? "\(field.linkKey)='array'" : "\(field.sortKey) BETWEEN '[' AND '\\'"
        let elements = "json_each(iif(\(field.jsonType())='array',\(field.extract()),'[]'))"
        branches.append("\(field.jsonType())='array' AND \(array) AND EXISTS (SELECT 1 FROM \(elements) WHERE \(test))")
        let inClass = "class=\(SQLiteLiteral.text(className))"
        return "(" + branches.map { "(\(inClass) AND \($0))" }.joined(separator: " OR ") + ")"
    }

    mutating func comparison(_ field: QueryField, _ symbol: String, _ value: ParseValue) throws -> String {
        switch value {
        case .number, .string: break
        case .object where value.parseType == "Date": break
        default: throw ParseError.invalidQuery("\(field.path): comparisons need a number, string or Date")
        }
        if let column = field.column {
            arguments += [try columnOperand(field, value)]
            return "(\(column) \(symbol) ?)"
        }
        let operand = try Operand(value, field: field)
        guard let bound = operand.bound else { throw ParseError.invalidQuery("\(field.path): cannot compare this type") }
        let types = operand.kind.types.map { "'\($0)'" }.joined(separator: ", ")
        arguments += [Operand.databaseValue(bound)]
        return "(\(field.sortKey) \(symbol) ? AND \(field.jsonType(suffix: operand.kind.suffix)) IN (\(types)))"
    }

    /// The value to compare `objectId`, `createdAt` or `updatedAt` with.
    func columnOperand(_ field: QueryField, _ value: ParseValue) throws -> String {
        try QueryTerms.columnOperand(field.column ?? "", path: field.path, value)
    }

    // MARK: - Order

    private mutating func orderClause(_ keys: [String]) throws -> String {
        let terms = try QueryTerms.orderKeys(keys).map { key -> String in
            switch key {
            case .score:
                return "hits.text_score DESC"
            case .field(let path, let descending):
                let field = QueryField(path: path)
                return (field.column ?? field.sortKey) + (descending ? " DESC" : " ASC")
            }
        }
        var tail: [String] = []
        if let distanceOrder {
            arguments += distanceOrder.arguments
            tail.append(distanceOrder.sql + " ASC")
        }
        return (terms + tail + ["created_at ASC", "id ASC"]).joined(separator: ", ")
    }
}
