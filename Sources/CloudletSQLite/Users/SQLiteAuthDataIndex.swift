import Cloudlet
import CloudletRuntime
import GRDB

/// Users found by the ids of their `authData` (`authData.<provider>.id`), through an index per
/// provider, and kept to one user per id: checked in the transaction of each user's write.
enum SQLiteAuthDataIndex {
    /// An index on each provider's id among the `_User` objects.
    static func registerIndexes(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("authDataIndexes") { db in
            for provider in AuthProvider.allCases {
                try db.execute(
                    sql: "CREATE INDEX users_by_\(provider.rawValue)_id ON objects (\(idExpression(provider.rawValue))) WHERE class = '_User'")
            }
        }
    }

    /// The ids of the users linked to any of `ids`, at most two.
    static func userIds(linkedTo ids: [AuthProvider: String], _ db: Database) throws -> [String] {
        var found: Set<String> = []
        for (provider, id) in ids where found.count < 2 {
            found.formUnion(try String.fetchAll(db, sql: select(provider.rawValue, limit: 2), arguments: [id, nil]))
        }
        return Array(found.sorted().prefix(2))
    }

    /// Throws 208 when another user is linked to one of the `authData` ids of `user`. Only the
    /// providers Cloudlet knows are indexed and compared (others only a master-key write could store).
    static func checkUniqueness(of user: ParseObject, _ db: Database) throws {
        guard let providers = user[AuthData.field]?.objectValue else { return }
        for (provider, data) in providers where AuthProvider(rawValue: provider) != nil {
            guard let id = data.objectValue?["id"]?.stringValue else { continue }
            if try String.fetchOne(db, sql: select(provider, limit: 1), arguments: [id, user.objectId]) != nil {
                throw UserAccounts.alreadyLinked
            }
        }
    }

    /// The ids of the users other than the second argument's whose `provider` id is the first argument.
    private static func select(_ provider: String, limit: Int) -> String {
        "SELECT id FROM objects WHERE class = '_User' AND \(idExpression(provider)) = ? AND id IS NOT ? LIMIT \(limit)"
    }

    /// The expression of the index on `provider`'s id, written alike in the index and each query so that SQLite uses it.
    private static func idExpression(_ provider: String) -> String {
        "json_extract(data, '$.authData.\(provider).id')"
    }

}
