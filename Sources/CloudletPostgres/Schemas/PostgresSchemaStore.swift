import Cloudlet
import CloudletRuntime
import PostgresNIO

/// ``SchemaStorage`` in the app's schema, as the SQLite store keeps it: a class is a row of
/// `classes` (its CLP document and its indexes as JSON text), its fields the rows of `fields`, the
/// same rows every write records and checks (``PostgresFieldTypes``). An index is a PostgreSQL
/// index on the objects of its class (``PostgresSchemaIndexes``).
///
/// A change locks the class's row, as a write recording a new field does, so that the two take
/// turns across nodes; it notifies every node, which forgets the class's schema (CLPs included)
/// and drops the field types it cached. A purge notifies as a change does.
public struct PostgresSchemaStore: SchemaStorage {
    private let objects: PostgresObjectStore
    private var schema: PostgresAppSchema { objects.schema }
    private var logger: Logger { objects.database.logger }

    /// The class schemas of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        objects = try await PostgresObjectStore(database, schema: schema)
    }

    /// The CLPs and indexes of `classes`, as a change of the schema.
    static let migration = PostgresMigrations.Migration(
        name: "class_schemas",
        statements: ["ALTER TABLE {schema}.classes ADD COLUMN permissions text, ADD COLUMN indexes text NOT NULL DEFAULT '{}'"])

    public func storedClasses(limit: Int) async throws -> [StoredClassSchema] {
        try await objects.database.client.withConnection { connection in
            try await load(#"ORDER BY class COLLATE "C" LIMIT $1"#, PostgresBindings(max(limit, 0)), on: connection)
        }
    }

    public func storedClass(_ className: String) async throws -> StoredClassSchema? {
        try await objects.database.client.withConnection { connection in
            try await load("WHERE class = $1", PostgresBindings(className), on: connection).first
        }
    }

    public func createClass(_ stored: StoredClassSchema) async throws {
        try await change(stored.className) { connection in
            var binds = PostgresBindings(stored.className)
            binds.append(stored.permissions.map { JSONWriter.string($0.json) })
            binds.append(JSONWriter.string(StoredClassSchema.indexesDocument(stored.indexes)))
            let inserted = try await connection.count(
                "INSERT INTO \(schema.quoted).classes (class, permissions, indexes) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1", binds,
                logger: logger)
            guard inserted == 1 else { throw ParseError(code: 103, message: "Class \(stored.className) already exists.") }
            try await addFields(stored.fieldTypes, to: stored.className, on: connection)
            for (name, keys) in stored.indexes {
                try await PostgresSchemaIndexes.create(name, keys, on: stored.className, types: stored.fieldTypes, in: schema, on: connection, logger: logger)
            }
        }
    }

    public func updateClass(_ className: String, _ change: SchemaChange) async throws {
        try await self.change(className) { connection in
            // Parse's own classes exist before their first object.
            if SystemClass.named(className) != nil {
                try await connection.run("INSERT INTO \(schema.quoted).classes (class) VALUES ($1) ON CONFLICT DO NOTHING", PostgresBindings(className), logger: logger)
            }
            guard var stored = try await lockedClass(className, on: connection) else {
                throw ParseError(code: 103, message: "Class \(className) does not exist.")
            }
            for (field, type) in change.deletedFields {
                let binds = PostgresBindings(className, field)
                try await connection.run("DELETE FROM \(schema.quoted).fields WHERE class = $1 AND field = $2", binds, logger: logger)
                try await connection.run("UPDATE \(objects.table) SET data = data - $2 WHERE class = $1 AND data ? $2", binds, logger: logger)
                if case .relation = type {
                    try await connection.run("DELETE FROM \(schema.quoted).relations WHERE owning_class = $1 AND field = $2", binds, logger: logger)
                }
                stored.fieldTypes[field] = nil
            }
            try await addFields(change.addedFields, to: className, on: connection)
            stored.fieldTypes.merge(change.addedFields) { _, new in new }
            for name in change.deletedIndexes {
                try await PostgresSchemaIndexes.drop(name, of: className, in: schema, on: connection, logger: logger)
                stored.indexes[name] = nil
            }
            for (name, keys) in change.addedIndexes {
                try await PostgresSchemaIndexes.create(name, keys, on: className, types: stored.fieldTypes, in: schema, on: connection, logger: logger)
                stored.indexes[name] = keys
            }
            var binds = PostgresBindings()
            binds.append((change.permissions ?? stored.permissions).map { JSONWriter.string($0.json) })
            binds.append(JSONWriter.string(StoredClassSchema.indexesDocument(stored.indexes)))
            binds.append(className)
            try await connection.run("UPDATE \(schema.quoted).classes SET permissions = $1, indexes = $2 WHERE class = $3", binds, logger: logger)
        }
    }

    public func deleteClass(_ className: String) async throws {
        try await change(className) { connection in
            guard let stored = try await lockedClass(className, on: connection) else { return }
            let binds = PostgresBindings(className)
            var count = 0
            for try await n in try await connection.run("SELECT count(*) FROM \(objects.table) WHERE class = $1", binds, logger: logger).decode(Int.self) {
                count = n
            }
            guard count == 0 else {
                throw ParseError(code: 255, message: "Class \(className) is not empty, contains \(count) objects, cannot drop schema.")
            }
            for name in stored.indexes.keys { try await PostgresSchemaIndexes.drop(name, of: className, in: schema, on: connection, logger: logger) }
            try await connection.run("DELETE FROM \(schema.quoted).fields WHERE class = $1", binds, logger: logger)
            try await connection.run("DELETE FROM \(schema.quoted).relations WHERE owning_class = $1", binds, logger: logger)
            try await connection.run("DELETE FROM \(schema.quoted).classes WHERE class = $1", binds, logger: logger)
        }
    }

    public func purge(_ className: String) async throws {
        try await change(className) { connection in
            let binds = PostgresBindings(className)
            // Every account is a user's: purging the users ends them all.
            if className == SystemClass.user.name { try await PostgresAccountStore.deleteAllAccounts(in: schema, on: connection, logger: logger) }
            try await connection.run("DELETE FROM \(schema.quoted).relations WHERE owning_class = $1 OR related_class = $1", binds, logger: logger)
            try await connection.run("DELETE FROM \(objects.table) WHERE class = $1", binds, logger: logger)
        }
    }

    /// Runs `body` in one transaction that notifies every node of the app that the schema of
    /// `className` changed (``PostgresStoreChanges``): each forgets the class's schema and drops
    /// the field types it cached, this node at once once it commits.
    private func change(_ className: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        try await objects.writer.write { connection, afterCommit in
            try await body(connection)
            try await PostgresStoreChanges.notify(.classSchema(className), in: schema, on: connection, logger: logger)
            afterCommit.append { [database = objects.database, topic = PostgresStoreChanges.schemaTopic(schema)] in
                database.notifications.signal(for: topic).signal()
            }
        }
    }

    /// The schema of `className` with its row locked until the transaction ends, or nil.
    private func lockedClass(_ className: String, on connection: PostgresConnection) async throws -> StoredClassSchema? {
        try await load("WHERE class = $1 FOR UPDATE", PostgresBindings(className), on: connection).first
    }

    /// The schemas of the classes `clause` selects from `classes`, with their fields.
    private func load(_ clause: String, _ binds: PostgresBindings, on connection: PostgresConnection) async throws -> [StoredClassSchema] {
        var rows: [(className: String, permissions: String?, indexes: String)] = []
        let sql = "SELECT class, permissions, indexes FROM \(schema.quoted).classes \(clause)"
        for try await row in try await connection.run(sql, binds, logger: logger).decode((String, String?, String).self) { rows.append(row) }
        guard !rows.isEmpty else { return [] }
        var fields: [String: [String: ParseFieldType]] = [:]
        let fieldRows = try await connection.run(
            "SELECT class, field, type FROM \(schema.quoted).fields WHERE class = ANY($1)", PostgresBindings(rows.map(\.className)), logger: logger)
        for try await (className, field, type) in fieldRows.decode((String, String, String).self) {
            if let type = ParseFieldType(storedName: type) { fields[className, default: [:]][field] = type }
        }
        return try rows.map { row in
            var stored = StoredClassSchema(className: row.className, fieldTypes: fields[row.className] ?? [:])
            if let text = row.permissions { stored.permissions = try ClassLevelPermissions(json: try JSONParser.parse(text), fields: stored.allFields) }
            stored.indexes = StoredClassSchema.indexes(fromDocument: try JSONParser.parse(row.indexes))
            return stored
        }
    }

    /// Records `fields` of `className`; 255 for a field another change recorded meanwhile.
    private func addFields(_ fields: [String: ParseFieldType], to className: String, on connection: PostgresConnection) async throws {
        for (field, type) in fields {
            let added = try await connection.count(
                "INSERT INTO \(schema.quoted).fields (class, field, type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1",
                PostgresBindings(className, field, type.description), logger: logger)
            guard added == 1 else { throw ParseError(code: 255, message: "Field \(field) exists, cannot update.") }
        }
    }
}
