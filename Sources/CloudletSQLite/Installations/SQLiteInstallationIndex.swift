import Cloudlet
import CloudletRuntime
import GRDB

/// `_Installation` objects found by the keys an installation save looks them up by, through
/// indexes: a registration costs the same with a million devices as with ten.
enum SQLiteInstallationIndex {
    /// Indexes on `_Installation`'s `installationId` and `deviceToken`.
    static func registerIndexes(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("installation_indexes") { db in
            for key in InstallationKey.allCases {
                try db.execute(
                    sql: "CREATE INDEX objects_installations_by_\(key.rawValue) ON objects (\(key.expression)) WHERE class = '_Installation'")
            }
        }
    }

    /// Throws 137 when another installation has the `installationId` of `object`: two devices
    /// registering the same new id at once make one installation, not two.
    static func checkUniqueness(of object: ParseObject, _ db: Database) throws {
        guard object.className == "_Installation", let id = object["installationId"]?.stringValue else { return }
        let expression = InstallationKey.installationId.expression
        if try Bool.fetchOne(
            db, sql: "SELECT 1 FROM objects WHERE class = '_Installation' AND \(expression) = ? AND id IS NOT ?",
            arguments: [id, object.objectId]) == true
        {
            throw ParseError(code: 137, message: "an installation with installationId \(id) exists")
        }
    }

    /// The installations whose `key` is `value`, at most `limit`, in id order, as stored, in the
    /// transaction of `db`.
    static func installations(with key: InstallationKey, equalTo value: String, limit: Int, _ db: Database) throws -> [ParseObject] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, created_at, updated_at, acl, data FROM objects
                WHERE class = '_Installation' AND \(key.expression) = ? ORDER BY id LIMIT ?
                """,
            arguments: [value, limit]
        ).map { try ObjectRows.object("_Installation", $0) }
    }
}

extension InstallationKey {
    /// The indexed SQL expression of the key (a constant: never anything a client sent).
    fileprivate var expression: String {
        "json_extract(data, '$.\(rawValue)')"
    }
}
