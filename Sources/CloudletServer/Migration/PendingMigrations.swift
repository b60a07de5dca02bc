import CloudletPostgres

/// `cloudlet migrate --database`: applies the changes the registry's schema and every app's schema
/// lack, each schema under its advisory lock, so that it is safe beside nodes starting at once
/// (each change is applied once, by whichever takes the lock first).
public enum PendingMigrations {
    /// The changes applied to one schema.
    public struct Applied: Sendable, Equatable {
        /// The schema's name (`cloudlet`, or `app_` and the app id).
        public var schema: String
        /// The names of the changes applied, oldest first; empty when it was up to date.
        public var changes: [String]
    }

    /// Applies what is pending in `database`: the registry's schema first, then each app's it lists.
    public static func apply(in database: CloudletPostgres.PostgresDatabase) async throws -> [Applied] {
        let host = PostgresAppSchema.host
        var applied = [Applied(schema: host.name, changes: try await PostgresMigrations.apply(PostgresRegistryStorage.migrations, to: host, in: database))]
        for record in try await AppRegistry(database: database).list() {
            let schema = PostgresAppSchema(appId: record.id)
            applied.append(Applied(schema: schema.name, changes: try await PostgresMigrations.apply(to: schema, in: database)))
        }
        return applied
    }
}
