import Cloudlet
import CloudletRuntime
import PostgresNIO

/// Turns a Parse query into SQL over an app schema's `objects` table, with the meaning the SQLite
/// store's query builder gives it (a differential test runs both on one corpus): a value matches
/// only values of its own JSON type, or an array holding one; a Date compares by its `iso`, a
/// Pointer by its `objectId`; text compares byte by byte (`COLLATE "C"`, as SQLite's `BINARY`); an
/// order sorts missing and null values first, then numbers and Booleans (as 1 and 0), then text,
/// Dates and JSON text.
///
/// Compiled: equality, `$eq`, `$ne`, `$lt`, `$lte`, `$gt`, `$gte`, `$in`, `$nin`, `$all`,
/// `$containedBy`, `$exists`, `$or`, `$and`, the inner queries (`$inQuery`, `$notInQuery`,
/// `$select`, `$dontSelect`), `$relatedTo` and pointers matched against relation fields, the geo
/// operators, `$regex` (``PostgresRegex``), dotted paths, the order, limit and skip, and the
/// reader's ACL; `$text` (``textClause(_:_:)``) and the `$score` it ranks by.
struct PostgresQueryCompiler: SQLWhereCompiling {
    /// A term of the `where` compiles to SQL text.
    typealias Clause = String

    /// The most results one query returns, as on Parse.com.
    static let maximumLimit = StorageQuery.maximumLimit

    private(set) var binds = PostgresBindings()
    /// What the query has used of its bounds so far, inner queries included.
    var bounds = QueryBounds()
    let table: String
    let relations: String
    /// The schema's text search configuration (``textConfiguration``), qualified.
    let textSearchConfiguration: String
    /// The class whose rows the query (or the inner query being compiled) selects.
    private(set) var className = ""
    /// The reader's ACL identities, for the outer query and every inner one; nil reads as master.
    private var identities: [String]?
    /// The distance a `$nearSphere` orders the results by, nearest first.
    var distanceOrder: String?
    /// Whether the query matches a `$regex` or searches `$text`: its statement then runs under a time bound.
    var matchesPatterns = false
    /// The `$text` of the query being compiled (an inner query's is its own): the `tsvector` and
    /// `tsquery` its `$score` ranks by.
    var text: (vector: String, query: String)?
    /// The class and field of every `$text` of the statement, checked to hold Strings before it runs.
    var textFields: [(className: String, field: String)] = []

    /// A compiler for the `objects` table of `schema`.
    init(schema: PostgresAppSchema) {
        table = schema.quoted + ".objects"
        relations = schema.quoted + ".relations"
        textSearchConfiguration = schema.quoted + "." + Self.textConfiguration
    }

    /// What a row of an object is selected as: `id, created_at, updated_at, acl, data`.
    static let objectColumns = "id, created_at, updated_at, acl::text, data::text"

    /// The rows of `query`, as `columns` (by default the object's), in its order, within its limit and skip.
    mutating func select(_ query: StorageQuery, columns: String? = nil) throws -> String {
        let filter = try filter(query)
        let order = try orderClause(query.query.order)
        guard query.query.skip >= 0 else { throw ParseError.invalidQuery("skip must not be negative") }
        let limit = bind(min(max(query.query.limit, 0), Self.maximumLimit))
        let skip = bind(query.query.skip)
        return try checked(
            "SELECT \(try columns ?? objectColumns(query)) FROM \(table) WHERE \(filter) ORDER BY \(order) LIMIT \(limit) OFFSET \(skip)")
    }

    /// The object's columns; with `keys` naming `$score`, its relevance as its `score` field.
    private mutating func objectColumns(_ query: StorageQuery) throws -> String {
        guard query.query.keys?.contains("$score") == true else { return Self.objectColumns }
        return "id, created_at, updated_at, acl::text, (data || jsonb_build_object('score', \(try textScore())))::text"
    }

    /// How many rows match `query`.
    mutating func count(_ query: StorageQuery) throws -> String {
        try checked("SELECT count(*) FROM \(table) WHERE \(try filter(query))")
    }

    /// `sql`, once its length and the values it binds are within the ``QueryBounds``.
    func checked(_ sql: String) throws -> String {
        try QueryBounds.check(sql: sql, arguments: binds.count)
        return sql
    }

    private mutating func filter(_ query: StorageQuery) throws -> String {
        identities = query.readerIdentities
        return try filter(className: query.query.className, constraints: query.query.constraints, depth: 0)
    }

    /// The rows of `className` the reader may read that match `constraints`, nested `depth` deep.
    mutating func filter(className: String, constraints: [String: ParseValue], depth: Int) throws -> String {
        let (outer, outerText) = (self.className, text)
        self.className = className
        // An inner query has a `$text` of its own; the query's stays for its order and keys.
        if depth > 0 { text = nil }
        defer {
            self.className = outer
            if depth > 0 { text = outerText }
        }
        var clauses = ["class = \(bind(className))"]
        if let identities {
            clauses.append(
                "(acl IS NULL OR EXISTS (SELECT 1 FROM jsonb_each(acl) AS entry WHERE entry.key = ANY(\(bind(identities))) AND entry.value -> 'read' = 'true'::jsonb))"
            )
        }
        clauses.append(try clause(for: constraints, depth: depth))
        return clauses.joined(separator: " AND ")
    }

    /// Appends `value` to the binds; answers its placeholder.
    mutating func bind(_ value: some PostgresNonThrowingEncodable & Sendable) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// `value` bound as `jsonb`.
    mutating func bindJSON(_ value: ParseValue) -> String {
        bind(JSONWriter.string(value)) + "::jsonb"
    }

    static func joined(_ parts: [String], _ connective: String) -> String {
        guard parts.count > 1 else { return parts.first ?? (connective == "AND" ? "true" : "false") }
        return "(" + parts.joined(separator: " \(connective) ") + ")"
    }

    // MARK: - Constraints

    func field(_ path: String) -> PostgresField {
        PostgresField(path: path)
    }

    static let falseLiteral = "false"

    func presence(_ field: PostgresField, _ exists: Bool) -> String {
        field.column != nil ? (exists ? "true" : "false") : "(\(field.value) IS \(exists ? "NOT " : "")NULL)"
    }

    /// `$relatedTo`: the row is one of the objects in the relation `key` of the object `object`
    /// points to, found through the join rows' key; the row must still pass the reader's ACL.
    mutating func relatedTo(_ operand: ParseValue) throws -> String {
        let (owner, key) = try QueryTerms.relatedTo(operand)
        return "id IN (SELECT related_id FROM \(relations) WHERE owning_class = \(bind(owner.className)) AND owning_id = "
            + "\(bind(owner.objectId)) AND field = \(bind(key)) AND related_class = \(bind(className)))"
    }

    /// `field = value`, where a value matches only values of its own JSON type; for an array field,
    /// also true when the array holds such an element (not for Dates, arrays and plain objects).
    mutating func equality(_ field: PostgresField, _ value: ParseValue) throws -> String {
        let path = field.value
        if let column = field.column {
            if case .null = value { return "false" }
            return "(\(column) = \(bind(try columnOperand(field, value))))"
        }
        switch value {
        case .null:
            return "(\(path) IS NULL OR \(path) = 'null'::jsonb)"
        case .bool, .string, .number:
            return Self.plainEquality(field, bindJSON(value))
        case .array:
            return "(\(path) = \(bindJSON(value)))"
        case .object:
            if let geo = try geoEquality(field, value) { return geo }
            if value.parseType == "Date", let date = value.dateValue {
                return "(\(path) -> 'iso' = \(bindJSON(.string(ParseDate.string(from: date)))))"
            }
            if let pointer = value.pointerValue {
                let id = bindJSON(.string(pointer.objectId))
                var test = "(\(path) -> 'objectId' = \(id) OR (jsonb_typeof(\(path)) = 'array' AND EXISTS "
                    + "(SELECT 1 FROM jsonb_array_elements(\(path)) AS element WHERE element -> 'objectId' = \(id)))"
                if !field.path.contains(".") {
                    // A relation field relates the object: its owners found through the join rows' index by related id.
                    test += " OR (\(path) ->> '__type' = 'Relation' AND id IN (SELECT owning_id FROM \(relations) WHERE related_id = "
                        + "\(bind(pointer.objectId)) AND owning_class = \(bind(className)) AND field = \(bind(field.path))))"
                }
                return test + ")"
            }
            guard value.parseType == nil else { throw ParseError.invalidQuery("\(field.path): cannot compare this type") }
            return "(\(path) = \(bindJSON(value)))"
        }
    }

    /// `$regex` (with the letters of its `$options`): the field is a string (or a column) the pattern matches.
    mutating func regex(_ field: PostgresField, _ pattern: String, options: String) throws -> String {
        let expression = bind(try PostgresRegex.expression(pattern, options: options))
        matchesPatterns = true
        if let column = field.column { return "(\(column) ~ \(expression))" }
        let path = field.value
        return "(jsonb_typeof(\(path)) = 'string' AND (\(path) #>> '{}') ~ \(expression))"
    }

    /// `$containedBy`: the field (not a column) is an array whose every element equals one of
    /// `values` (a Date by its `iso`, a Pointer by its `objectId`).
    mutating func containedBy(_ field: PostgresField, _ values: [ParseValue]) throws -> String {
        let tests = try values.map { value -> String in
            switch try QueryOperand(value, path: field.path) {
            case .date(let iso): "element -> 'iso' = \(bindJSON(.string(iso)))"
            case .pointer(let id): "element -> 'objectId' = \(bindJSON(.string(id)))"
            default: "element = \(bindJSON(value))"
            }
        }
        let path = field.value
        return "(jsonb_typeof(\(path)) = 'array' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(\(path)) AS element "
            + "WHERE NOT COALESCE(\(Self.joined(tests, "OR")), false)))"
    }

    mutating func comparison(_ field: PostgresField, _ symbol: String, _ value: ParseValue) throws -> String {
        if let column = field.column {
            return "(\(column) COLLATE \"C\" \(symbol) \(bind(try columnOperand(field, value))))"
        }
        let path = field.value
        switch value {
        case .number(let number):
            // A CASE, not an AND: PostgreSQL may evaluate an AND's cast before its type test.
            return "(CASE WHEN jsonb_typeof(\(path)) = 'number' THEN (\(path))::numeric \(symbol) \(bind(number))::numeric ELSE false END)"
        case .string(let text):
            return "(jsonb_typeof(\(path)) = 'string' AND (\(path) #>> '{}') COLLATE \"C\" \(symbol) \(bind(text)))"
        case .object where value.parseType == "Date":
            guard let date = value.dateValue else { throw ParseError.invalidQuery("\(field.path): not a Date") }
            return "(jsonb_typeof(\(path) -> 'iso') = 'string' AND (\(path) ->> 'iso') COLLATE \"C\" \(symbol) \(bind(ParseDate.string(from: date))))"
        default:
            throw ParseError.invalidQuery("\(field.path): comparisons need a number, string or Date")
        }
    }

    /// The value to compare `objectId`, `createdAt` or `updatedAt` with.
    private func columnOperand(_ field: PostgresField, _ value: ParseValue) throws -> String {
        try QueryTerms.columnOperand(field.column ?? "", path: field.path, value)
    }

    // MARK: - Order

    private mutating func orderClause(_ keys: [String]) throws -> String {
        var terms: [String] = []
        for key in try QueryTerms.orderKeys(keys) {
            guard case .field(let path, let descending) = key else {
                terms.append(try textScore() + " DESC")
                continue
            }
            let field = PostgresField(path: path)
            let direction = descending ? " DESC" : " ASC"
            if let column = field.column {
                terms.append("\(column) COLLATE \"C\"\(direction)")
            } else {
                terms += field.sortKeys.map { $0 + direction }
            }
        }
        if let distanceOrder { terms.append(distanceOrder + " ASC") }
        terms.append("created_at COLLATE \"C\" ASC")
        terms.append("id COLLATE \"C\" ASC")
        return terms.joined(separator: ", ")
    }
}
