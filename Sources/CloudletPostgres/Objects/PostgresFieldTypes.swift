import Cloudlet
import CloudletRuntime
import PostgresNIO
import Synchronization

/// The type of each field of each class, as first written, kept in the schema's `fields` table
/// (the class in `classes`) and cached once committed; as the SQLite store's `FieldSchemaCache`.
///
/// Checked inside the write's transaction, after locking the class's row in `classes`, so that two
/// nodes writing a new field at once with different types cannot both win.
///
/// A schema change (``PostgresSchemaStore``) notifies every node on the topic ``changeTopic(_:)``:
/// each node drops the types every store of the app cached once the notification arrives (at once
/// on the node that made the change), so a deleted field is read again before it is checked.
final class PostgresFieldTypes: Sendable {
    private struct Cache {
        var types: [String: [String: String]] = [:]
        /// The count of ``changes`` the cached types were read after.
        var generation = 0
    }

    private let cache = Mutex(Cache())
    private let schema: PostgresAppSchema
    /// Given whenever the app's schemas change, on this node or another.
    private let changes: WakeSignal

    init(schema: PostgresAppSchema, database: PostgresDatabase) {
        self.schema = schema
        changes = database.notifications.signal(for: Self.changeTopic(schema))
    }

    /// The topic of the notification that the schemas of the app of `schema` changed.
    static func changeTopic(_ schema: PostgresAppSchema) -> String { "schema " + schema.name }

    /// The cached types of `className`, the cache dropped first if the schemas changed since it was read.
    private func cached(_ className: String) -> [String: String]? {
        let generation = changes.count
        return cache.withLock { cache in
            if cache.generation != generation { cache = Cache(generation: generation) }
            return cache.types[className]
        }
    }

    /// Caches `types` of `className`, read after the count `generation` of ``changes``.
    private func remember(_ types: [String: String], of className: String, readAfter generation: Int) {
        cache.withLock { cache in
            if cache.generation != generation { cache = Cache(generation: generation) }
            cache.types[className] = types
        }
    }

    /// Throws 111 if a field of `object` has a type other than the one its class recorded; records
    /// the class and the types of fields seen for the first time, in the transaction of `connection`.
    /// Answers what to cache once the transaction commits.
    func check(_ object: ParseObject, on connection: PostgresConnection, logger: Logger) async throws -> (@Sendable () -> Void)? {
        let className = object.className
        let seen = object.fields.compactMap { field, value in ParseFieldType.ofValidated(value).map { (field, $0.description) } }
        let generation = changes.count
        var known = cached(className) ?? [:]
        guard seen.contains(where: { known[$0.0] == nil }) else {
            try Self.throwMismatch(className, seen, known)
            return nil
        }
        // A field not cached: the class's row locked, its recorded types read as they are now.
        var binds = PostgresBindings()
        binds.append(className)
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO \(schema.quoted).classes (class) VALUES ($1) ON CONFLICT DO NOTHING", binds: binds), logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT 1 FROM \(schema.quoted).classes WHERE class = $1 FOR UPDATE", binds: binds), logger: logger)
        known = [:]
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT field, type FROM \(schema.quoted).fields WHERE class = $1", binds: binds), logger: logger)
        for try await (field, type) in rows.decode((String, String).self) { known[field] = type }
        try Self.throwMismatch(className, seen, known)
        for (field, type) in seen where known[field] == nil {
            var insert = PostgresBindings()
            insert.append(className)
            insert.append(field)
            insert.append(type)
            try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \(schema.quoted).fields (class, field, type) VALUES ($1, $2, $3)", binds: insert), logger: logger)
            known[field] = type
        }
        return { [known] in self.remember(known, of: className, readAfter: generation) }
    }

    /// Throws 111 for the first field of `seen` whose type differs from the one `known` records.
    private static func throwMismatch(_ className: String, _ seen: [(String, String)], _ known: [String: String]) throws {
        for (field, type) in seen {
            if let expected = known[field], expected != type {
                throw ParseError.incorrectType("schema mismatch for \(className).\(field); expected \(expected) but got \(type)")
            }
        }
    }
}
