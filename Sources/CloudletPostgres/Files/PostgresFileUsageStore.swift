import Cloudlet
import CloudletRuntime
import PostgresNIO

/// ``FileUsageStorage`` in the app's PostgreSQL schema: the `file_usage` table, one row holding the
/// bytes the app's stored files take, none until they were first counted. Every node serving the
/// app adds to the same row, so the app's `files.maxTotalBytes` holds across nodes. The file names
/// objects reference are read from the `objects` table.
public struct PostgresFileUsageStore: FileUsageStorage {
    private let database: PostgresDatabase
    private let table: String
    private let objects: String

    /// The file usage of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        table = schema.quoted + ".file_usage"
        objects = schema.quoted + ".objects"
    }

    /// `file_usage`: one row, the bytes the app's stored files take.
    static let migration = PostgresMigrations.Migration(
        name: "file_usage",
        statements: ["CREATE TABLE {schema}.file_usage (id integer PRIMARY KEY CHECK (id = 1), bytes bigint NOT NULL)"])

    public func storedFileBytes() async throws -> Int64? {
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT bytes FROM \(table) WHERE id = 1"), logger: database.logger)
        for try await bytes in rows.decode(Int64.self) { return bytes }
        return nil
    }

    public func startStoredFileBytes(at bytes: Int64) async throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(bytes)
        return try await database.transaction { connection in
            // A start at once with another waits for its row, then finds it.
            try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \(table) (id, bytes) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", binds: binds),
                logger: database.logger)
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT bytes FROM \(table) WHERE id = 1"), logger: database.logger)
            for try await total in rows.decode(Int64.self) { return total }
            return bytes
        }
    }

    public func addStoredFileBytes(_ bytes: Int64, limit: Int64?) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(bytes)
        binds.append(limit)
        // The check in numeric, so that a sum past bigint's range is refused rather than an error.
        let sql = """
            UPDATE \(table) SET bytes = greatest(0, bytes + $1)
            WHERE $2::bigint IS NULL OR $1 <= 0 OR bytes::numeric + $1 <= $2 RETURNING 1
            """
        return try await database.execute(sql, binds) > 0
    }

    /// Reads every object, in one statement: the names of the objects at any depth of its fields
    /// whose `__type` is `File` and whose `name` is a string.
    public func referencedFileNames() async throws -> Set<String> {
        let sql = """
            SELECT DISTINCT file #>> '{}' FROM \(objects),
            jsonb_path_query(data, 'strict $.** ? (@.__type == "File" && @.name.type() == "string").name', '{}', true) AS file
            """
        var names: Set<String> = []
        for try await name in try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(String.self) {
            names.insert(name)
        }
        return names
    }
}
