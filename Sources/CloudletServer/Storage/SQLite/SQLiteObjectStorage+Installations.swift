import Cloudlet
import GRDB

extension SQLiteObjectStorage {
    /// Indexes on `_Installation`'s `installationId` and `deviceToken`, which every installation
    /// save looks up: a registration costs the same with a million devices as with ten.
    static func registerInstallationIndexes(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("installation_indexes") { db in
            for key in InstallationKey.allCases {
                try db.execute(
                    sql: "CREATE INDEX objects_installations_by_\(key.rawValue) ON objects (\(key.expression)) WHERE class = '_Installation'")
            }
        }
    }

    public func installations(with key: InstallationKey, equalTo value: String, limit: Int) async throws -> [ParseObject] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, created_at, updated_at, acl, data FROM objects
                    WHERE class = '_Installation' AND \(key.expression) = ? ORDER BY id LIMIT ?
                    """,
                arguments: [value, limit]
            ).map { try Self.object("_Installation", $0) }
        }
    }
}

extension InstallationKey {
    /// The indexed SQL expression of the key (a constant: never anything a client sent).
    fileprivate var expression: String {
        "json_extract(data, '$.\(rawValue)')"
    }
}
