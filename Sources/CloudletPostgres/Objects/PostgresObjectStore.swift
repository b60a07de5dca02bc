import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// An app's objects in its PostgreSQL schema, as the `objects` table: one row per object, its
/// fields and ACL as `jsonb`, its dates as Parse's ISO text (which sorts as the instants do).
///
/// Stores, updates and deletes objects, each write one transaction with the after hook it owes (a
/// row of the app's ``PostgresWorkQueue``), the field types it records and its relations' join rows,
/// and runs queries through ``PostgresQueryCompiler`` and pipelines through
/// ``PostgresAggregateCompiler``. Its writes join a ``PostgresSharedTransaction`` in the task of
/// one of its members. System classes are stored as the SQLite store stores them: their unique
/// values kept by ``PostgresUniqueValues``, a user's password and account changed and removed with
/// it (``PostgresAccountStore``).
public struct PostgresObjectStore: Sendable {
    let database: PostgresDatabase
    let schema: PostgresAppSchema
    let table: String
    let fieldTypes: PostgresFieldTypes
    /// The most bytes an object's fields and ACL may take, as on SQLite (116 past it).
    let maximumObjectBytes: Int
    /// The URLs `File` values read back get (see ``ObjectStorage/fileURLs``).
    public let fileURLs: FileURLs?
    /// This node's LiveQuery feed of the app, whose classes the writes tell every node of.
    let liveChanges: LiveObjectChanges

    /// The objects of the app whose schema is `schema`, made or brought up to date first; `File`
    /// values read back get their URLs from `fileURLs`.
    public init(
        _ database: PostgresDatabase, schema: PostgresAppSchema, maximumObjectBytes: Int = 1 << 20, fileURLs: FileURLs? = nil
    ) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.fileURLs = fileURLs
        self.database = database
        self.schema = schema
        self.maximumObjectBytes = maximumObjectBytes
        table = schema.quoted + ".objects"
        fieldTypes = PostgresFieldTypes(schema: schema, database: database)
        liveChanges = database.liveFeed(of: schema).changes
        // Listening, so that another node's schema change drops the field types cached here.
        _ = await database.wakeSignal(for: PostgresFieldTypes.changeTopic(schema))
    }

    /// Where this store's writes open their transactions.
    var writer: PostgresWriter { PostgresWriter(database: database, schema: schema) }

    /// The object `id` of `className`, or nil.
    public func fetch(_ className: String, id: String) async throws -> ParseObject? {
        var binds = PostgresBindings()
        binds.append(className)
        binds.append(id)
        return try await database.client.withConnection { connection in
            try await objects(
                className, "SELECT id, created_at, updated_at, acl::text, data::text FROM \(table) WHERE class = $1 AND id = $2", binds,
                on: connection)
        }.first
    }

    /// The objects matching `query`, in its order, within its limit and skip.
    public func find(_ query: StorageQuery) async throws -> [ParseObject] {
        var compiler = PostgresQueryCompiler(schema: schema)
        let sql = try compiler.select(query)
        return try await bounded(compiler) { connection in
            try await objects(query.query.className, sql, compiler.binds, on: connection, budget: query.budget)
        }
    }

    /// How many objects match `query` (its limit and skip aside).
    public func count(_ query: StorageQuery) async throws -> Int {
        var compiler = PostgresQueryCompiler(schema: schema)
        let sql = try compiler.count(query)
        return try await bounded(compiler) { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: compiler.binds), logger: database.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// The most a statement matching `$regex` patterns or `$text` searches, or running a
    /// pipeline, may run.
    static let patternStatementTimeout: Duration = .seconds(5)

    /// Runs `body` on a connection: for a statement matching patterns or searching text (or any,
    /// if `always`), inside a transaction bounded to ``patternStatementTimeout``; a statement past
    /// it, or a pattern PostgreSQL finds too complex, answers 102.
    func bounded<Result: Sendable>(
        _ compiler: PostgresQueryCompiler, always: Bool = false, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        guard compiler.matchesPatterns || always else { return try await database.client.withConnection { try await body($0) } }
        do {
            return try await database.transaction { connection in
                let milliseconds = Self.patternStatementTimeout.components.seconds * 1000
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: database.logger)
                try await checkTextFields(compiler.textFields, on: connection)
                return try await body(connection)
            }
        } catch let error as PSQLError where ["57014", "2201B", "54001"].contains(error.serverInfo?[.sqlState] ?? "") {
            throw ParseError.invalidQuery("the query needs more work than one query may do: use a simpler $regex or $text, or narrow it")
        }
    }

    /// Throws 102 when one of `fields` searched by `$text` is stored with a type other than String,
    /// as on SQLite (a field never written matches nothing).
    private func checkTextFields(_ fields: [(className: String, field: String)], on connection: PostgresConnection) async throws {
        for (className, field) in fields {
            var binds = PostgresBindings()
            binds.append(className)
            binds.append(field)
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT type FROM \(schema.quoted).fields WHERE class = $1 AND field = $2", binds: binds), logger: database.logger)
            for try await type in rows.decode(String.self) where type != "String" {
                throw ParseError.invalidQuery("$text needs a String field; \(field) holds \(type) values")
            }
        }
    }

    /// The objects of `className` that `sql` selects (`id, created_at, updated_at, acl, data`),
    /// each charged to `budget` before it is parsed.
    private func objects(
        _ className: String, _ sql: String, _ binds: PostgresBindings, on connection: PostgresConnection, budget: ReadBudget? = nil
    ) async throws -> [ParseObject] {
        var objects: [ParseObject] = []
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger)
        for try await row in rows.decode((String, String, String, String?, String).self) {
            try budget?.charge(bytes: ReadBudget.storedSize(data: row.4, acl: row.3))
            objects.append(FileURLs.presenting(try Self.object(className, row), with: fileURLs))
        }
        return objects
    }

    /// The object of `className` in `row` (`id, created_at, updated_at, acl, data`).
    static func object(_ className: String, _ row: (String, String, String, String?, String)) throws -> ParseObject {
        ParseObject(
            className: className, objectId: row.0, createdAt: ParseDate.date(from: row.1), updatedAt: ParseDate.date(from: row.2),
            acl: try row.3.flatMap { ParseACL(json: try JSONParser.parse($0)) }, fields: try JSONParser.parse(row.4).objectValue ?? [:])
    }
}

extension PostgresObjectStore: ObjectStorage {}
