import Cloudlet
import GRDB

extension SQLiteObjectStorage {
    /// The names of the files that `File` values of stored objects name, at any depth of their
    /// fields. Reads every object that mentions a `File`, in one read transaction.
    public func referencedFileNames() async throws -> Set<String> {
        try await pool.read { db in
            let names = try String.fetchSet(
                db,
                sql: """
                    SELECT DISTINCT json_extract(node.value, '$.name') FROM objects, json_tree(objects.data) AS node
                    WHERE instr(objects.data, 'File') > 0 AND node.type = 'object'
                    AND json_extract(node.value, '$.__type') = 'File' AND json_extract(node.value, '$.name') IS NOT NULL
                    """)
            return names
        }
    }
}
