import Cloudlet
import GRDB

/// Turns a Parse query into SQL over the `objects` table. Field paths go in as bound JSON paths and
/// values as bound parameters; nothing from the client is spliced into the SQL text.
struct SQLiteQueryBuilder {
    struct Statement {
        var sql: String
        var arguments: StatementArguments
    }

    /// The most results one query returns, as on Parse.com.
    static let maximumLimit = 1000

    private var arguments = StatementArguments()

    static func select(_ query: StorageQuery) throws -> Statement {
        var builder = SQLiteQueryBuilder()
        let filter = try builder.filter(query)
        let order = try builder.orderClause(query.query.order)
        let limit = min(max(query.query.limit, 0), maximumLimit)
        guard query.query.skip >= 0 else { throw ParseError.invalidQuery("skip must not be negative") }
        builder.arguments += [limit, query.query.skip]
        return Statement(
            sql: "SELECT id, created_at, updated_at, acl, data FROM objects WHERE \(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
            arguments: builder.arguments)
    }

    static func count(_ query: StorageQuery) throws -> Statement {
        var builder = SQLiteQueryBuilder()
        let filter = try builder.filter(query)
        return Statement(sql: "SELECT COUNT(*) FROM objects WHERE \(filter)", arguments: builder.arguments)
    }

    private mutating func filter(_ query: StorageQuery) throws -> String {
        arguments += [query.query.className]
        var clauses = ["class = ?"]
        if let identities = query.readerIdentities {
            let marks = Array(repeating: "?", count: identities.count).joined(separator: ", ")
            arguments += StatementArguments(identities)
            clauses.append(
                "(acl IS NULL OR EXISTS (SELECT 1 FROM json_each(acl) WHERE key IN (\(marks)) AND json_extract(value, '$.read') = 1))")
        }
        clauses.append(try clause(for: query.query.constraints, depth: 0))
        return clauses.joined(separator: " AND ")
    }

    // MARK: - Constraints

    private mutating func clause(for constraints: [String: ParseValue], depth: Int) throws -> String {
        guard depth < 8 else { throw ParseError.invalidQuery("$or and $and nested too deep") }
        var clauses: [String] = []
        for key in constraints.keys.sorted() {
            let value = constraints[key]!
            switch key {
            case "$or", "$and":
                guard let branches = value.arrayValue, !branches.isEmpty else {
                    throw ParseError.invalidQuery("\(key) needs a non-empty array of queries")
                }
                let parts = try branches.map { branch -> String in
                    guard let members = branch.objectValue else { throw ParseError.invalidQuery("\(key) needs queries") }
                    return try clause(for: members, depth: depth + 1)
                }
                clauses.append("(" + parts.joined(separator: key == "$or" ? " OR " : " AND ") + ")")
            default:
                try ParseNames.validateFieldPath(key)
                let field = QueryField(path: key)
                if let operators = value.objectValue, operators.keys.contains(where: { $0.hasPrefix("$") }) {
                    clauses.append(try operatorClauses(field, operators))
                } else {
                    clauses.append(try equality(field, value))
                }
            }
        }
        return clauses.isEmpty ? "1" : clauses.joined(separator: " AND ")
    }

    private mutating func operatorClauses(_ field: QueryField, _ operators: [String: ParseValue]) throws -> String {
        var clauses: [String] = []
        for op in operators.keys.sorted() {
            let operand = operators[op]!
            switch op {
            case "$eq": clauses.append(try equality(field, operand))
            case "$ne": clauses.append("NOT COALESCE(\(try equality(field, operand)), 0)")
            case "$lt", "$lte", "$gt", "$gte":
                let symbol = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="][op]!
                clauses.append(try comparison(field, symbol, operand))
            case "$in", "$nin", "$all":
                guard let values = operand.arrayValue else { throw ParseError.invalidQuery("\(op) needs an array") }
                let parts = try values.map { try equality(field, $0) }
                switch op {
                case "$in": clauses.append(parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")")
                case "$nin": clauses.append(parts.isEmpty ? "1" : "NOT COALESCE((" + parts.joined(separator: " OR ") + "), 0)")
                default: clauses.append(parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")")
                }
            case "$exists":
                guard let exists = operand.boolValue else { throw ParseError.invalidQuery("$exists needs true or false") }
                clauses.append(field.isColumn ? (exists ? "1" : "0") : (exists ? "" : "NOT ") + "(\(field.type(&arguments)) IS NOT NULL)")
            case "$regex":
                clauses.append(try regex(field, operand, options: operators["$options"]))
            case "$options":
                guard operators["$regex"] != nil else { throw ParseError.invalidQuery("$options needs $regex") }
            default:
                throw ParseError.invalidQuery("unsupported query operator \(op)")
            }
        }
        return clauses.isEmpty ? "1" : clauses.joined(separator: " AND ")
    }

    /// `field = value`, where a value matches only values of its own JSON type; for an array field,
    /// also true when the array holds such an element.
    private mutating func equality(_ field: QueryField, _ value: ParseValue) throws -> String {
        if case .null = value { return field.isColumn ? "0" : "(\(field.value(&arguments)) IS NULL)" }
        if let column = field.column {
            let operand = try columnOperand(field, value)
            arguments += [operand]
            return "(\(column) = ?)"
        }
        let operand = try Operand(value, field: field)
        let direct = typed(field, operand, comparison: "= ?")
        guard operand.canBeElement else { return direct }
        arguments += [field.jsonPath, field.jsonPath]
        let elementTypes = operand.suffix.isEmpty ? operand.types : ["object"]
        var test = "json_each.type IN (\(elementTypes.map { "'\($0)'" }.joined(separator: ", ")))"
        if let bound = operand.value {
            test += " AND " + (operand.suffix.isEmpty ? "json_each.value" : "json_extract(json_each.value, '$\(operand.suffix)')") + " = ?"
            arguments += [bound]
        }
        let elements = "json_each(CASE WHEN json_type(data, ?) = 'array' THEN json_extract(data, ?) ELSE '[]' END)"
        return "(\(direct) OR EXISTS (SELECT 1 FROM \(elements) WHERE \(test)))"
    }

    private mutating func comparison(_ field: QueryField, _ symbol: String, _ value: ParseValue) throws -> String {
        switch value {
        case .number, .string: break
        case .object where value.parseType == "Date": break
        default: throw ParseError.invalidQuery("\(field.path): comparisons need a number, string or Date")
        }
        if let column = field.column {
            arguments += [try columnOperand(field, value)]
            return "(\(column) \(symbol) ?)"
        }
        return typed(field, try Operand(value, field: field), comparison: "\(symbol) ?")
    }

    /// `(json_type(...) IN types AND json_extract(...) <comparison>)`, binding the path and operand.
    private mutating func typed(_ field: QueryField, _ operand: Operand, comparison: String) -> String {
        let path = field.jsonPath + operand.suffix
        let types = operand.types.map { "'\($0)'" }.joined(separator: ", ")
        arguments += [path]
        guard let bound = operand.value else { return "(json_type(data, ?) IN (\(types)))" }
        arguments += [path, bound]
        return "(json_type(data, ?) IN (\(types)) AND json_extract(data, ?) \(comparison))"
    }

    /// The value to compare `objectId`, `createdAt` or `updatedAt` with.
    private func columnOperand(_ field: QueryField, _ value: ParseValue) throws -> String {
        if field.column == "id" {
            guard let id = value.stringValue else { throw ParseError.invalidQuery("objectId must be a string") }
            return id
        }
        guard let date = value.dateValue else { throw ParseError.invalidQuery("\(field.path) must be compared with a Date") }
        return ParseDate.string(from: date)
    }

    private mutating func regex(_ field: QueryField, _ pattern: ParseValue, options: ParseValue?) throws -> String {
        guard let text = pattern.stringValue else { throw ParseError.invalidQuery("$regex needs a string") }
        var flags = ""
        if let options {
            guard let letters = options.stringValue, letters.allSatisfy({ "imsx".contains($0) }) else {
                throw ParseError.invalidQuery("$options may hold only i, m, s and x")
            }
            flags = letters.isEmpty ? "" : "(?\(letters))"
        }
        let full = flags + text
        do { _ = try SQLiteRegex.compiled(full) } catch { throw ParseError.invalidQuery("invalid $regex") }
        arguments += [full]
        return "regexp(?, \(field.value(&arguments)))"
    }

    // MARK: - Order

    private mutating func orderClause(_ keys: [String]) throws -> String {
        var terms: [String] = []
        for key in keys where !key.isEmpty {
            let descending = key.hasPrefix("-")
            let path = descending ? String(key.dropFirst()) : key
            try ParseNames.validateFieldPath(path)
            let field = QueryField(path: path)
            let expression: String
            if let column = field.column {
                expression = column
            } else {
                arguments += [field.jsonPath + ".iso", field.jsonPath]
                expression = "COALESCE(json_extract(data, ?), json_extract(data, ?))"
            }
            terms.append(expression + (descending ? " DESC" : " ASC"))
        }
        terms.append("created_at ASC")
        terms.append("id ASC")
        return terms.joined(separator: ", ")
    }
}

/// A query value as SQLite compares it: the JSON types it may match, the path suffix inside the
/// field (`.iso` for a Date, `.objectId` for a Pointer) and the bound operand (none for Booleans,
/// which match on type alone).
private struct Operand {
    let types: [String]
    let suffix: String
    let value: (any DatabaseValueConvertible & Sendable)?
    let canBeElement: Bool

    init(_ parseValue: ParseValue, field: QueryField) throws {
        switch parseValue {
        case .bool(let flag): (types, suffix, value, canBeElement) = ([flag ? "true" : "false"], "", nil, true)
        case .string(let text): (types, suffix, value, canBeElement) = (["text"], "", text, true)
        case .number(let number): (types, suffix, value, canBeElement) = (["integer", "real"], "", number, true)
        case .array: (types, suffix, value, canBeElement) = (["array"], "", JSONWriter.string(parseValue), false)
        case .object:
            if parseValue.parseType == "Date", let date = parseValue.dateValue {
                (types, suffix, value, canBeElement) = (["text"], ".iso", ParseDate.string(from: date), false)
            } else if let pointer = parseValue.pointerValue {
                (types, suffix, value, canBeElement) = (["text"], ".objectId", pointer.objectId, true)
            } else if parseValue.parseType == nil {
                (types, suffix, value, canBeElement) = (["object"], "", JSONWriter.string(parseValue), false)
            } else {
                throw ParseError.invalidQuery("\(field.path): cannot compare this type")
            }
        case .null:
            throw ParseError.invalidQuery("\(field.path): cannot compare with null")
        }
    }
}

/// A field named in a query: one of the object's columns, or a path into its JSON fields.
struct QueryField {
    let path: String

    /// The column behind `objectId`, `createdAt` and `updatedAt`.
    var column: String? {
        switch path {
        case "objectId": "id"
        case "createdAt": "created_at"
        case "updatedAt": "updated_at"
        default: nil
        }
    }

    var isColumn: Bool { column != nil }

    /// The JSON path, such as `$.address.city` (names are validated identifiers, so no quoting is needed).
    var jsonPath: String { "$." + path }

    /// `json_extract(data, ?)`, with the path (plus `suffix`, such as `.iso`) appended to `arguments`.
    func value(_ arguments: inout StatementArguments, suffix: String = "") -> String {
        if let column { return column }
        arguments += [jsonPath + suffix]
        return "json_extract(data, ?)"
    }

    /// `json_type(data, ?)` with the path appended to `arguments`.
    func type(_ arguments: inout StatementArguments) -> String {
        arguments += [jsonPath]
        return "json_type(data, ?)"
    }
}
