import CloudletRuntime
import PostgresNIO

/// The join rows of relation fields, in the schema's one `relations` table for every class and
/// field, keyed as the SQLite store's (owning class, owning id, field, related id), with a second
/// index by related id and class: no table is made under a write, and no class or field name
/// becomes part of SQL text.
enum PostgresRelations {
    /// The table and its index, as a change of the schema.
    static let migration = PostgresMigrations.Migration(
        name: "relations",
        statements: [
            """
            CREATE TABLE {schema}.relations (
                owning_class text NOT NULL, owning_id text NOT NULL, field text NOT NULL, related_class text NOT NULL, related_id text NOT NULL,
                PRIMARY KEY (owning_class, owning_id, field, related_id)
            )
            """,
            "CREATE INDEX relations_by_related ON {schema}.relations (related_id, related_class)",
        ])

    /// Adds and removes the join rows `changes` asks for, for the object `id` of `className`, in
    /// the transaction of `connection`.
    static func apply(
        _ changes: [String: RelationChange], owner className: String, id: String, in schema: PostgresAppSchema, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        for (field, change) in changes {
            if !change.adding.isEmpty {
                var binds = PostgresBindings()
                binds.append(className)
                binds.append(id)
                binds.append(field)
                binds.append(change.targetClass)
                binds.append(change.adding.sorted())
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO \(schema.quoted).relations (owning_class, owning_id, field, related_class, related_id)
                            SELECT $1, $2, $3, $4, related FROM unnest($5::text[]) AS related ON CONFLICT DO NOTHING
                            """, binds: binds), logger: logger)
            }
            if !change.removing.isEmpty {
                var binds = PostgresBindings()
                binds.append(className)
                binds.append(id)
                binds.append(field)
                binds.append(change.removing.sorted())
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "DELETE FROM \(schema.quoted).relations WHERE owning_class = $1 AND owning_id = $2 AND field = $3 AND related_id = ANY($4)",
                        binds: binds), logger: logger)
            }
        }
    }

    /// Drops every join row of the object `id` of `className`, as owner or as related object.
    static func removeAll(of className: String, id: String, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        var binds = PostgresBindings()
        binds.append(className)
        binds.append(id)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    DELETE FROM \(schema.quoted).relations
                    WHERE (owning_class = $1 AND owning_id = $2) OR (related_class = $1 AND related_id = $2)
                    """, binds: binds), logger: logger)
    }
}
