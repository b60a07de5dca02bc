import Cloudlet
import CloudletRuntime
import Crypto
import Foundation
import PostgresNIO

/// The indexes made through `/schemas`: each a PostgreSQL index on the app schema's `objects`
/// table, partial to its class (`WHERE class = '…'`), over the expressions the query compiler
/// orders a field by (``PostgresField/sortKeys``: an order on the field with the class's condition
/// reads the index) or, for a Pointer field, the `objectId` its equality compares. The bounds on indexes and their
/// fields are the routes' (``ClassSchemas/maximumIndexes``), the same on both stores.
package enum PostgresSchemaIndexes {
    /// Creates the index `name` of `className`, whose fields have `types`, in the transaction of `connection`.
    static func create(
        _ name: String, _ keys: [StoredClassSchema.IndexKey], on className: String, types: [String: ParseFieldType], in schema: PostgresAppSchema,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let columns = keys.flatMap { key in
            expressions(key.field, type: types[key.field]).map { "\($0) \(key.ascending ? "ASC" : "DESC")" }
        }
        let classLiteral = "'" + className.replacingOccurrences(of: "'", with: "''") + "'"
        try await connection.run(
            "CREATE INDEX \(quoted(indexName(name, className))) ON \(schema.quoted).objects (\(columns.joined(separator: ", "))) WHERE class = \(classLiteral)",
            logger: logger)
    }

    /// Drops the index `name` of `className`, if it exists.
    static func drop(_ name: String, of className: String, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("DROP INDEX IF EXISTS \(schema.quoted).\(quoted(indexName(name, className)))", logger: logger)
    }

    /// The expressions an index key on `field` (of `type`, if known) orders by, as queries write them.
    static func expressions(_ path: String, type: ParseFieldType?) -> [String] {
        let field = PostgresField(path: path)
        if let column = field.column { return ["\(column) COLLATE \"C\""] }
        if case .pointer = type { return ["(\(field.value) -> 'objectId')"] }
        return field.sortKeys
    }

    /// The PostgreSQL name of the index `name` of `className`, apart from every other class's (the
    /// class's length says where its name ends), within PostgreSQL's 63 bytes: a longer one keeps
    /// its first 40 bytes and adds a digest of the whole.
    static func indexName(_ name: String, _ className: String) -> String {
        let full = "schema_\(className.utf8.count)_\(className)_\(name)"
        guard full.utf8.count > 63 else { return full }
        let digest = SHA256.hash(data: Data(full.utf8)).prefix(10).map { String(format: "%02x", $0) }.joined()
        return String(decoding: full.utf8.prefix(40), as: UTF8.self) + "_" + digest
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
