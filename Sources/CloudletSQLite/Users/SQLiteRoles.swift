import Cloudlet
import CloudletRuntime
import GRDB

/// `_Role` objects in the app's database: their names kept unique, and the roles a user holds
/// found through the `relations` rows of the roles' `users` and `roles` fields (see ``UserRoles``),
/// one indexed query per level of the hierarchy, each bounded by what the resolution may still read
/// (``RoleResolution``).
enum SQLiteRoles {
    /// Roles by name, and the relation rows of roles by the object they relate (a member user or
    /// an inheriting role): the two lookups of a resolution, each an index probe. Roles made before
    /// relations were (their `users` and `roles` arrays of pointers) become relation rows, and the
    /// two fields relations, as Parse's `_Role` schema has them; any other element of those arrays
    /// is dropped.
    static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("role_relations") { db in
            try db.execute(
                sql: """
                    CREATE INDEX roles_by_name ON objects (json_extract(data, '$.name')) WHERE class = '_Role';
                    CREATE INDEX relations_of_roles ON relations (field, related_class, related_id) WHERE owning_class = '_Role';
                    """)
            for (field, target) in [("users", "_User"), ("roles", "_Role")] {
                let arguments: StatementArguments = [field, target]
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO relations (owning_class, owning_id, field, related_class, related_id)
                        SELECT '_Role', objects.id, ?1, ?2, json_extract(element.value, '$.objectId')
                        FROM objects, json_each(objects.data, '$.' || ?1) AS element
                        WHERE objects.class = '_Role' AND json_type(objects.data, '$.' || ?1) = 'array'
                            AND json_extract(element.value, '$.__type') = 'Pointer'
                            AND json_extract(element.value, '$.className') = ?2
                            AND json_type(element.value, '$.objectId') = 'text'
                        """, arguments: arguments)
                try db.execute(
                    sql: """
                        UPDATE objects SET data = json_set(data, '$.' || ?1, json_object('__type', 'Relation', 'className', ?2))
                        WHERE class = '_Role' AND json_type(data, '$.' || ?1) = 'array'
                        """, arguments: arguments)
                // A database without roles gets no `_Role` fields (nor, by them, a `_Role` class).
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO fields (class, field, type) SELECT '_Role', ?1, 'Relation<' || ?2 || '>'
                        WHERE EXISTS (SELECT 1 FROM objects WHERE class = '_Role')
                        """,
                    arguments: arguments)
            }
        }
    }

    /// Throws 137 when another role has the name of `role`.
    static func checkUniqueness(of role: ParseObject, _ db: Database) throws {
        guard let name = role["name"]?.stringValue,
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM objects WHERE class = '_Role' AND json_extract(data, '$.name') = ? AND id IS NOT ?",
                arguments: [name, role.objectId]) == true
        else { return }
        throw ParseError(code: 137, message: "A duplicate value for a field with unique values was provided")
    }

    /// The names of the roles the user `userId` holds, sorted, resolved as ``RoleResolution`` says.
    static func names(ofUser userId: String, _ db: Database) throws -> [String] {
        var resolution = RoleResolution(userId: userId)
        while let level = resolution.level {
            try resolution.read(try owners(field: level.field, relatedClass: level.relatedClass, of: level.ids, limit: resolution.rowLimit, db))
        }
        return resolution.names
    }

    /// The roles (id and name) whose relation `field` holds one of the objects `ids` of
    /// `relatedClass`, one row per relation row, at most `limit`.
    private static func owners(field: String, relatedClass: String, of ids: [String], limit: Int, _ db: Database) throws -> [(id: String, name: String?)] {
        // One statement for every level, whatever its size: the ids arrive as one JSON array.
        let statement = try db.cachedStatement(
            sql: """
                SELECT relations.owning_id AS id,
                    CASE json_type(objects.data, '$.name') WHEN 'text' THEN json_extract(objects.data, '$.name') END AS name
                FROM relations LEFT JOIN objects ON objects.class = '_Role' AND objects.id = relations.owning_id
                WHERE relations.owning_class = '_Role' AND relations.field = ? AND relations.related_class = ?
                    AND relations.related_id IN (SELECT value FROM json_each(?))
                LIMIT ?
                """)
        let rows = try Row.fetchAll(statement, arguments: [field, relatedClass, JSONWriter.string(.array(ids.map(ParseValue.string))), limit])
        return rows.map { ($0["id"], $0["name"]) }
    }
}

extension SQLiteAccountStore {
    public func roleNames(ofUser id: String) async throws -> [String] {
        try await database.pool.read { db in try SQLiteRoles.names(ofUser: id, db) }
    }
}
