import Cloudlet
import CloudletRuntime

extension AppStores {
    /// Every store of the app whose schema is `schema` in `database`, the schema made or brought up
    /// to date first: build it once per app and node. Objects larger than `maximumObjectBytes` are
    /// refused (116); `File` values read back get their URLs from `fileURLs`. The changes other
    /// nodes make to sessions, roles and class schemas reach the caches of the runtime built over
    /// them, and every node's committed writes reach this node's LiveQuery feed.
    public init(
        _ database: PostgresDatabase, schema: PostgresAppSchema, maximumObjectBytes: Int = 1 << 20, fileURLs: FileURLs? = nil
    ) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.init(
            objects: try await PostgresObjectStore(database, schema: schema, maximumObjectBytes: maximumObjectBytes, fileURLs: fileURLs),
            accounts: try await PostgresAccountStore(database, schema: schema, maximumObjectBytes: maximumObjectBytes),
            work: try await PostgresWorkQueue(database, schema: schema), jobs: try await PostgresJobStore(database, schema: schema),
            push: try await PostgresPushStore(database, schema: schema), fileUsage: try await PostgresFileUsageStore(database, schema: schema),
            hookRuns: try await PostgresHookRunStore(database, schema: schema), config: try await PostgresGlobalConfigStore(database, schema: schema),
            schemas: try await PostgresSchemaStore(database, schema: schema))
        // What other nodes write reaches this node's caches of sessions, roles and class schemas.
        changes = await database.storeChanges(of: schema)
        let feed = database.liveFeed(of: schema)
        feed.fileURLs = fileURLs
        liveChanges = feed.changes
    }
}
