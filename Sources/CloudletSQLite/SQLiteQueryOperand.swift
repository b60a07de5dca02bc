import Cloudlet
import CloudletRuntime
import GRDB

/// A query value as SQLite compares it: its ``Kind`` and the bound operand (none for Booleans and
/// null, which match on type alone).
struct Operand {
    /// The JSON types a value may match, the path suffix inside the field (`.iso` for a Date,
    /// `.objectId` for a Pointer), and whether it also matches as an element of an array field.
    struct Kind: Hashable {
        let types: [String]
        let suffix: String
        let canBeElement: Bool

        /// A Pointer, compared by its `objectId`.
        static let pointer = Kind(types: ["text"], suffix: ".objectId", canBeElement: true)
    }

    let kind: Kind
    /// The value to compare with: a string or a number.
    let bound: ParseValue?

    init(_ parseValue: ParseValue, field: QueryField) throws {
        switch try QueryOperand(parseValue, path: field.path) {
        case .bool(let flag): (kind, bound) = (Kind(types: [flag ? "true" : "false"], suffix: "", canBeElement: true), nil)
        case .string: (kind, bound) = (Kind(types: ["text"], suffix: "", canBeElement: true), parseValue)
        case .number: (kind, bound) = (Kind(types: ["integer", "real"], suffix: "", canBeElement: true), parseValue)
        case .array: (kind, bound) = (Kind(types: ["array"], suffix: "", canBeElement: false), .string(JSONWriter.string(parseValue)))
        case .date(let iso): (kind, bound) = (Kind(types: ["text"], suffix: ".iso", canBeElement: false), .string(iso))
        case .pointer(let id): (kind, bound) = (.pointer, .string(id))
        case .object: (kind, bound) = (Kind(types: ["object"], suffix: "", canBeElement: false), .string(JSONWriter.string(parseValue)))
        case .null: throw ParseError.invalidQuery("\(field.path): cannot compare with null")
        }
    }

    /// `bound` as SQLite binds it.
    static func databaseValue(_ bound: ParseValue) -> DatabaseValue {
        switch bound {
        case .number(let number): number.databaseValue
        default: (bound.stringValue ?? "").databaseValue
        }
    }
}

/// What a field's value is compared with: one bound value, any value of a bound JSON array (one
/// argument however long the list), a column of an enclosing query, or any row of a subquery.
enum Comparand {
    case value(DatabaseValue)
    case anyOf(jsonArray: String)
    case column(String)
    /// A one-column `SELECT` and the values it binds.
    case anyRow(select: String, arguments: StatementArguments)

    /// `= ?`, `IN (SELECT value FROM json_each(?))`, `= <column>` or `IN (<select>)`, binding what it needs.
    func sql(_ arguments: inout StatementArguments) -> String {
        switch self {
        case .value(let value):
            arguments += [value]
            return " = ?"
        case .anyOf(let jsonArray):
            arguments += [jsonArray]
            return " IN (SELECT value FROM json_each(?))"
        case .column(let name):
            return " = " + name
        case .anyRow(let select, let bound):
            arguments += bound
            return " IN (\(select))"
        }
    }
}

/// A field named in a query: one of the object's columns, or a path into its JSON fields.
struct QueryField {
    let path: String

    /// The column behind `objectId`, `createdAt` and `updatedAt`.
    var column: String? { QueryTerms.column(path) }

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

    /// `json_extract(data, '$.path<suffix>')`, the path a literal (see ``SQLiteLiteral``).
    func extract(suffix: String = "") -> String {
        "json_extract(data,\(SQLiteLiteral.text(jsonPath + suffix)))"
    }

    /// `json_type(data, '$.path<suffix>')`, the path a literal.
    func jsonType(suffix: String = "") -> String {
        "json_type(data,\(SQLiteLiteral.text(jsonPath + suffix)))"
    }

    /// What the field sorts by: a Date's `iso`, any other value itself. Every index made through
    /// `/schemas` orders this expression, and queries compare and sort by it, so that the index serves them.
    var sortKey: String { "COALESCE(\(extract(suffix: ".iso")),\(extract()))" }

    /// What a Pointer field is indexed and compared by: the id it points to, else the JSON type of
    /// the value (`array` for a list of pointers), so that one index serves every branch of a
    /// pointer equality.
    var linkKey: String { "COALESCE(\(extract(suffix: ".objectId")),\(jsonType()))" }

    /// The expression equal to the field's value (at `kind`'s suffix) where the field holds a value of
    /// `kind`: ``linkKey`` for a Pointer, the value itself for a plain object (whose `iso` member
    /// would stand in for it in the sort key), ``sortKey`` for every other kind.
    func comparable(_ kind: Operand.Kind) -> String {
        if kind == .pointer { return linkKey }
        return kind.types.contains("object") ? extract() : sortKey
    }
}
