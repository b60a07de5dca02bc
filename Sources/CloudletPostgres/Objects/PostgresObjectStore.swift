import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// An app's objects in its PostgreSQL schema, as the `objects` table: one row per object, its
/// fields and ACL as `jsonb`, its dates as Parse's ISO text (which sorts as the instants do).
///
/// Stores and reads objects and runs queries through ``PostgresQueryCompiler``. Updates, deletes,
/// relations, aggregates and the hooks' queued events are the SQLite store's alone so far: this
/// store does not yet stand behind ``ObjectStorage``.
public struct PostgresObjectStore: Sendable {
    private let database: PostgresDatabase
    private let table: String

    /// The objects of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.apply(to: schema, in: database)
        self.database = database
        table = schema.quoted + ".objects"
    }

    /// Stores `object`, which has its id and timestamps already.
    public func insert(_ object: ParseObject) async throws {
        let text = ObjectText(object)
        var binds = PostgresBindings()
        binds.append(object.className)
        binds.append(object.objectId)
        binds.append(text.createdAt)
        binds.append(text.updatedAt)
        binds.append(text.acl)
        binds.append(text.fields)
        try await database.execute(
            "INSERT INTO \(table) (class, id, created_at, updated_at, acl, data) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)", binds)
    }

    /// The object `id` of `className`, or nil.
    public func fetch(_ className: String, id: String) async throws -> ParseObject? {
        var binds = PostgresBindings()
        binds.append(className)
        binds.append(id)
        return try await objects(
            className, "SELECT id, created_at, updated_at, acl::text, data::text FROM \(table) WHERE class = $1 AND id = $2", binds
        ).first
    }

    /// The objects matching `query`, in its order, within its limit and skip.
    public func find(_ query: StorageQuery) async throws -> [ParseObject] {
        var compiler = PostgresQueryCompiler(table: table)
        let sql = try compiler.select(query)
        return try await objects(query.query.className, sql, compiler.binds, budget: query.budget)
    }

    /// How many objects match `query` (its limit and skip aside).
    public func count(_ query: StorageQuery) async throws -> Int {
        var compiler = PostgresQueryCompiler(table: table)
        let sql = try compiler.count(query)
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: compiler.binds), logger: database.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The objects of `className` that `sql` selects (`id, created_at, updated_at, acl, data`),
    /// each charged to `budget` before it is parsed.
    private func objects(_ className: String, _ sql: String, _ binds: PostgresBindings, budget: ReadBudget? = nil) async throws -> [ParseObject] {
        var objects: [ParseObject] = []
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger)
        for try await (id, createdAt, updatedAt, acl, data) in rows.decode((String, String, String, String?, String).self) {
            try budget?.charge(bytes: ReadBudget.storedSize(data: data, acl: acl))
            objects.append(
                ParseObject(
                    className: className, objectId: id, createdAt: ParseDate.date(from: createdAt), updatedAt: ParseDate.date(from: updatedAt),
                    acl: try acl.flatMap { ParseACL(json: try JSONParser.parse($0)) }, fields: try JSONParser.parse(data).objectValue ?? [:]))
        }
        return objects
    }
}
