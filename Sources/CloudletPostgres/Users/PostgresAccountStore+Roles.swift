import Cloudlet
import CloudletRuntime
import PostgresNIO

/// The roles a user holds, found through the `relations` rows of the roles' `users` and `roles`
/// fields (``PostgresRelations``), one query per level of the hierarchy through the relations'
/// index by related object, each bounded by what the resolution may still read (``RoleResolution``).
/// The levels are read in one transaction, so that a resolution sees one state of the roles.
extension PostgresAccountStore {
    public func roleNames(ofUser id: String) async throws -> [String] {
        try await objects.database.transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var resolution = RoleResolution(userId: id)
            while let level = resolution.level {
                try resolution.read(try await owners(of: level, limit: resolution.rowLimit, on: connection))
            }
            return resolution.names
        }
    }

    /// The roles (id and name) whose relation `level.field` holds one of the level's objects, one
    /// row per relation row, at most `limit`.
    private func owners(of level: RoleResolution.Level, limit: Int, on connection: PostgresConnection) async throws -> [(id: String, name: String?)] {
        var binds = PostgresBindings()
        binds.append(level.field)
        binds.append(level.relatedClass)
        binds.append(level.ids)
        binds.append(limit)
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT relations.owning_id, CASE jsonb_typeof(objects.data -> 'name') WHEN 'string' THEN objects.data ->> 'name' END
                    FROM \(schema.quoted).relations LEFT JOIN \(objects.table) AS objects
                        ON objects.class = '_Role' AND objects.id = relations.owning_id
                    WHERE relations.owning_class = '_Role' AND relations.field = $1 AND relations.related_class = $2
                        AND relations.related_id = ANY($3)
                    LIMIT $4
                    """, binds: binds), logger: logger)
        var owners: [(id: String, name: String?)] = []
        for try await (id, name) in rows.decode((String, String?).self) { owners.append((id, name)) }
        return owners
    }
}
