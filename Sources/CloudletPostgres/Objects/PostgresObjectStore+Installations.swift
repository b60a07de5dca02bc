import Cloudlet
import CloudletRuntime
import PostgresNIO

/// `_Installation` objects found by the keys an installation save looks them up by, through
/// indexes: a registration costs the same with a million devices as with ten. The index on
/// `installationId` is its unique one (``PostgresUniqueValues``); `deviceToken` has its own.
extension PostgresObjectStore {
    /// The index on `deviceToken`, as a change of the schema.
    static let installationsMigration = PostgresMigrations.Migration(
        name: "installation_indexes",
        statements: [
            "CREATE INDEX installations_by_device_token ON {schema}.objects ((\(InstallationKey.deviceToken.expression))) WHERE class = '_Installation'"
        ])

    /// The installations whose `key` is `value`, at most `limit`, in id order, as stored.
    public func installations(with key: InstallationKey, equalTo value: String, limit: Int) async throws -> [ParseObject] {
        var binds = PostgresBindings()
        binds.append(value)
        binds.append(limit)
        return try await database.client.withConnection { connection in
            var found: [ParseObject] = []
            let rows = try await connection.query(PostgresQuery(unsafeSQL: installationsQuery(key), binds: binds), logger: database.logger)
            for try await row in rows.decode((String, String, String, String?, String).self) { found.append(try Self.object("_Installation", row)) }
            return found
        }
    }

    /// The statement of ``installations(with:equalTo:limit:)``, its value `$1` and its limit `$2`.
    func installationsQuery(_ key: InstallationKey) -> String {
        """
        SELECT id, created_at, updated_at, acl::text, data::text FROM \(table)
        WHERE class = '_Installation' AND \(key.expression) = $1 ORDER BY id COLLATE "C" LIMIT $2
        """
    }
}

extension InstallationKey {
    /// The indexed SQL expression of the key (a constant: never anything a client sent), as the
    /// indexes are written: the unique one on `installationId` too (``PostgresUniqueValues``).
    var expression: String {
        "data ->> '\(rawValue)'"
    }
}
