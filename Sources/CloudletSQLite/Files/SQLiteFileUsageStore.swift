import Cloudlet
import CloudletRuntime
import GRDB

/// ``FileUsageStorage`` in the app's database (the `file_usage` table), and the file names its
/// objects reference, which tell the files no object holds.
public struct SQLiteFileUsageStore: FileUsageStorage {
    let database: SQLiteAppDatabase

    /// The file usage of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    /// Reads every object that mentions a `File`, in one read transaction: the names of the objects
    /// at any depth of its fields whose `__type` is `File` and whose `name` is a string.
    public func referencedFileNames() async throws -> Set<String> {
        try await database.pool.read { db in
            let names = try String.fetchSet(
                db,
                sql: """
                    SELECT DISTINCT json_extract(node.value, '$.name') FROM objects, json_tree(objects.data) AS node
                    WHERE instr(objects.data, 'File') > 0 AND node.type = 'object'
                    AND json_extract(node.value, '$.__type') = 'File' AND json_type(node.value, '$.name') = 'text'
                    """)
            return names
        }
    }

    /// `file_usage`: one row, the bytes the app's stored files take; none until they were first counted.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("file_usage") { db in
            try db.execute(sql: "CREATE TABLE file_usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL)")
        }
    }

    public func storedFileBytes() async throws -> Int64? {
        try await database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT bytes FROM file_usage") }
    }

    public func startStoredFileBytes(at bytes: Int64) async throws -> Int64 {
        try await database.writeAlone { db in
            try db.execute(sql: "INSERT OR IGNORE INTO file_usage (id, bytes) VALUES (1, ?)", arguments: [bytes])
            return try Int64.fetchOne(db, sql: "SELECT bytes FROM file_usage") ?? bytes
        }
    }

    public func addStoredFileBytes(_ bytes: Int64, limit: Int64?) async throws -> Bool {
        try await database.writeAlone { db in
            try db.execute(
                sql: "UPDATE file_usage SET bytes = max(0, bytes + ?1) WHERE ?2 IS NULL OR ?1 <= 0 OR bytes + ?1 <= ?2",
                arguments: [bytes, limit])
            return db.changesCount > 0
        }
    }
}
