import Cloudlet
import CloudletRuntime
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

    /// Throws 137 when another installation has the `installationId` of `object`: two devices
    /// registering the same new id at once make one installation, not two.
    static func checkInstallationUniqueness(of object: ParseObject, _ db: Database) throws {
        guard object.className == "_Installation", let id = object["installationId"]?.stringValue else { return }
        let expression = InstallationKey.installationId.expression
        if try Bool.fetchOne(
            db, sql: "SELECT 1 FROM objects WHERE class = '_Installation' AND \(expression) = ? AND id IS NOT ?",
            arguments: [id, object.objectId]) == true
        {
            throw ParseError(code: 137, message: "an installation with installationId \(id) exists")
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
            ).map { self.presented(try Self.object("_Installation", $0)) }
        }
    }
}

extension InstallationKey {
    /// The indexed SQL expression of the key (a constant: never anything a client sent).
    fileprivate var expression: String {
        "json_extract(data, '$.\(rawValue)')"
    }
}
