import Cloudlet
import CloudletRuntime
import GRDB

/// ``SchemaStorage`` in the app's database: a class is a row of `classes` (its CLP document and its
/// indexes as JSON), its fields the rows of `fields` that every write checks (``FieldSchemaCache``).
/// An index is a partial SQLite index on the objects of its class, over the JSON values of its fields.
public struct SQLiteSchemaStore: SchemaStorage {
    let database: SQLiteAppDatabase

    /// The schemas of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// `classes`, filled with every class that has objects or recorded fields.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("classes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE classes (
                        class TEXT PRIMARY KEY NOT NULL, permissions TEXT, indexes TEXT NOT NULL DEFAULT '{}'
                    ) WITHOUT ROWID;
                    INSERT OR IGNORE INTO classes (class) SELECT DISTINCT class FROM objects;
                    INSERT OR IGNORE INTO classes (class) SELECT DISTINCT class FROM fields;
                    """)
        }
    }

    /// The indexes made through `/schemas` before queries compared fields by their sort key, made
    /// again on it.
    static func registerSortKeyIndexes(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("schema indexes by sort key") { db in
            let classes = try String.fetchAll(db, sql: "SELECT class FROM classes WHERE indexes != '{}'")
            for className in classes {
                for (name, keys) in try storedClass(className, db)?.indexes ?? [:] {
                    try db.execute(sql: "DROP INDEX IF EXISTS \(indexName(name, className))")
                    try createIndex(name, keys, on: className, db)
                }
            }
            if !classes.isEmpty { try SQLiteStatistics.analyzeObjects(db) }
        }
    }

    public func storedClasses(limit: Int) async throws -> [StoredClassSchema] {
        try await database.pool.read { db in
            let names = try String.fetchAll(db, sql: "SELECT class FROM classes ORDER BY class LIMIT ?", arguments: [limit])
            return try names.compactMap { try Self.storedClass($0, db) }
        }
    }

    public func storedClass(_ className: String) async throws -> StoredClassSchema? {
        try await database.pool.read { db in try Self.storedClass(className, db) }
    }

    public func createClass(_ schema: StoredClassSchema) async throws {
        let permissions = schema.permissions.map { JSONWriter.string($0.json) }
        try await database.write { db in
            guard try Self.storedClass(schema.className, db) == nil else {
                throw ParseError(code: 103, message: "Class \(schema.className) already exists.")
            }
            try db.execute(
                sql: "INSERT INTO classes (class, permissions, indexes) VALUES (?, ?, ?)",
                arguments: [schema.className, permissions, JSONWriter.string(StoredClassSchema.indexesDocument(schema.indexes))])
            try Self.addFields(schema.fieldTypes, to: schema.className, db)
            for (name, keys) in schema.indexes { try Self.createIndex(name, keys, on: schema.className, db) }
            if !schema.indexes.isEmpty { try SQLiteStatistics.analyzeObjects(db) }
            db.afterCommit { self.database.schema.forget(schema.className) }
        }
    }

    public func updateClass(_ className: String, _ change: SchemaChange) async throws {
        try await database.write { db in
            // Parse's own classes exist before their first object.
            if SystemClass.named(className) != nil {
                try db.execute(sql: "INSERT OR IGNORE INTO classes (class) VALUES (?)", arguments: [className])
            }
            guard var schema = try Self.storedClass(className, db) else { throw ParseError(code: 103, message: "Class \(className) does not exist.") }
            for (field, type) in change.deletedFields {
                try db.execute(sql: "DELETE FROM fields WHERE class = ? AND field = ?", arguments: [className, field])
                let path = "$.\(field)"
                try db.execute(
                    sql: "UPDATE objects SET data = json_remove(data, ?) WHERE class = ? AND json_type(data, ?) IS NOT NULL",
                    arguments: [path, className, path])
                if case .relation = type {
                    try db.execute(sql: "DELETE FROM relations WHERE owning_class = ? AND field = ?", arguments: [className, field])
                }
            }
            try Self.addFields(change.addedFields, to: className, db)
            for name in change.deletedIndexes {
                try db.execute(sql: "DROP INDEX IF EXISTS \(Self.indexName(name, className))")
                schema.indexes[name] = nil
            }
            for (name, keys) in change.addedIndexes {
                try Self.createIndex(name, keys, on: className, db)
                schema.indexes[name] = keys
            }
            if !change.addedIndexes.isEmpty { try SQLiteStatistics.analyzeObjects(db) }
            let permissions = (change.permissions ?? schema.permissions).map { JSONWriter.string($0.json) }
            try db.execute(
                sql: "UPDATE classes SET permissions = ?, indexes = ? WHERE class = ?",
                arguments: [permissions, JSONWriter.string(StoredClassSchema.indexesDocument(schema.indexes)), className])
            db.afterCommit { self.database.schema.forget(className) }
        }
    }

    public func deleteClass(_ className: String) async throws {
        try await database.write { db in
            guard let schema = try Self.storedClass(className, db) else { return }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM objects WHERE class = ?", arguments: [className]) ?? 0
            guard count == 0 else {
                throw ParseError(code: 255, message: "Class \(className) is not empty, contains \(count) objects, cannot drop schema.")
            }
            for name in schema.indexes.keys { try db.execute(sql: "DROP INDEX IF EXISTS \(Self.indexName(name, className))") }
            try db.execute(sql: "DELETE FROM fields WHERE class = ?", arguments: [className])
            try db.execute(sql: "DELETE FROM relations WHERE owning_class = ?", arguments: [className])
            try db.execute(sql: "DELETE FROM classes WHERE class = ?", arguments: [className])
            db.afterCommit { self.database.schema.forget(className) }
        }
    }

    public func purge(_ className: String) async throws {
        try await database.write { db in
            if className == "_User" {
                let users = "SELECT id FROM objects WHERE class = '_User'"
                try db.execute(sql: "DELETE FROM credentials WHERE user_id IN (\(users))")
                try db.execute(sql: "DELETE FROM sessions WHERE user_id IN (\(users))")
                try db.execute(sql: "DELETE FROM email_tokens WHERE user_id IN (\(users))")
            }
            try db.execute(sql: "DELETE FROM relations WHERE owning_class = ? OR related_class = ?", arguments: [className, className])
            try db.execute(sql: "DELETE FROM objects WHERE class = ?", arguments: [className])
        }
    }

    private static func storedClass(_ className: String, _ db: Database) throws -> StoredClassSchema? {
        guard let row = try Row.fetchOne(db, sql: "SELECT permissions, indexes FROM classes WHERE class = ?", arguments: [className]) else {
            return nil
        }
        var schema = StoredClassSchema(className: className)
        for field in try Row.fetchAll(db, sql: "SELECT field, type FROM fields WHERE class = ?", arguments: [className]) {
            if let type = ParseFieldType(storedName: field["type"]) { schema.fieldTypes[field["field"]] = type }
        }
        if let text: String = row["permissions"] {
            schema.permissions = try ClassLevelPermissions(json: try JSONParser.parse(text), fields: schema.allFields)
        }
        schema.indexes = StoredClassSchema.indexes(fromDocument: try JSONParser.parse(row["indexes"] as String))
        return schema
    }

    private static func addFields(_ fields: [String: ParseFieldType], to className: String, _ db: Database) throws {
        for (field, type) in fields {
            try db.execute(sql: "INSERT INTO fields (class, field, type) VALUES (?, ?, ?)", arguments: [className, field, type.description])
        }
    }

    /// Creates the index `name` of `className` over the expressions the query builder compares
    /// each field by (a Pointer field's ``QueryField/linkKey``, any other's ``QueryField/sortKey``),
    /// and the class as a literal, as the builder writes them (see ``SQLiteLiteral``). Class, index
    /// and field names are identifiers (letters, digits and `_`, checked before), the only names a
    /// statement's text takes.
    private static func createIndex(_ name: String, _ keys: [StoredClassSchema.IndexKey], on className: String, _ db: Database) throws {
        let columns = try keys.map { key in
            let type = try String.fetchOne(db, sql: "SELECT type FROM fields WHERE class = ? AND field = ?", arguments: [className, key.field])
            let field = QueryField(path: key.field)
            let expression = if case .pointer = type.flatMap(ParseFieldType.init(storedName:)) { field.linkKey } else { field.sortKey }
            return "\(expression) \(key.ascending ? "ASC" : "DESC")"
        }
        try db.execute(sql: "CREATE INDEX \(indexName(name, className)) ON objects (\(columns.joined(separator: ", "))) WHERE class = \(SQLiteLiteral.text(className))")
    }

    /// The SQLite name of the index `name` of `className`, apart from every other class's.
    private static func indexName(_ name: String, _ className: String) -> String {
        "\"schema_\(className.utf8.count)_\(className)_\(name)\""
    }
}
