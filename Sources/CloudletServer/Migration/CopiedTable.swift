import CloudletPostgres
import GRDB
import Logging
import PostgresNIO

/// One table of an app's SQLite file and its twin in the app's PostgreSQL schema, copied row for
/// row (no store, hook or trigger of the app's sees the rows on the way): read page by page in the
/// order of its key, each page one `INSERT` of ``pageRows`` rows at most, so that a copy holds one
/// page in memory whatever the table's size.
struct CopiedTable: Sendable {
    /// The most rows read, and inserted, at once.
    static let pageRows = 1_000

    /// What a SQLite value becomes in PostgreSQL. Each value travels as text and is cast there.
    enum Form: Sendable {
        case text, integer, bigint, double, boolean, jsonb
        /// Seconds since 1970 in SQLite, a `timestamptz` in PostgreSQL.
        case timestamp

        func expression(_ parameter: Int) -> String {
            switch self {
            case .text: "$\(parameter)"
            case .integer: "$\(parameter)::integer"
            case .bigint: "$\(parameter)::bigint"
            case .double: "$\(parameter)::float8"
            case .boolean: "$\(parameter)::boolean"
            case .jsonb: "$\(parameter)::jsonb"
            case .timestamp: "to_timestamp($\(parameter)::float8)"
            }
        }
    }

    /// The table's name, the same in both stores.
    let name: String
    /// Its columns, by name and form, the same in both stores.
    let columns: [(name: String, form: Form)]
    /// The SQLite columns that order its rows uniquely (its key), by which pages follow each other.
    let key: [String]

    init(_ name: String, _ columns: [(String, Form)], key: [String]) {
        self.name = name
        self.columns = columns.map { (name: $0.0, form: $0.1) }
        self.key = key
    }

    /// Copies every row of the table in `source` into `schema`, in the transaction of
    /// `connection`; answers how many it copied.
    func copy(from source: DatabaseQueue, to schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var copied = 0
        var after: [DatabaseValue]?
        while true {
            let page = try source.read { db in try Row.fetchAll(db, sql: selection(after: after), arguments: StatementArguments(after ?? [])) }
            guard let last = page.last else { return copied }
            try await insert(page, into: schema, on: connection, logger: logger)
            copied += page.count
            after = key.map { last[$0] }
            if page.count < Self.pageRows { return copied }
        }
    }

    /// The SQLite statement of the page after the row whose key is `after` (the first page if nil).
    private func selection(after: [DatabaseValue]?) -> String {
        let names = (columns.map(\.name) + key).map { "\"\($0)\"" }
        let keyList = key.map { "\"\($0)\"" }.joined(separator: ", ")
        let condition = after == nil ? "" : "WHERE (\(keyList)) > (\(key.map { _ in "?" }.joined(separator: ", ")))"
        return "SELECT \(names.joined(separator: ", ")) FROM \"\(name)\" \(condition) ORDER BY \(keyList) LIMIT \(Self.pageRows)"
    }

    /// Inserts the rows of `page` in one statement.
    private func insert(_ page: [Row], into schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        var binds = PostgresBindings()
        var tuples: [String] = []
        for row in page {
            var expressions: [String] = []
            for (index, column) in columns.enumerated() {
                binds.append(Self.text(row[index] as DatabaseValue))
                expressions.append(column.form.expression(binds.count))
            }
            tuples.append("(" + expressions.joined(separator: ", ") + ")")
        }
        let names = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO \(schema.quoted).\"\(name)\" (\(names)) VALUES \(tuples.joined(separator: ", "))", binds: binds),
            logger: logger)
    }

    /// A SQLite value as text PostgreSQL casts back exactly (a real number in its shortest form
    /// that reads back the same).
    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let number): String(number)
        case .double(let number): "\(number)"
        case .string(let text): text
        case .blob(let data): String(decoding: data, as: UTF8.self)
        }
    }
}
