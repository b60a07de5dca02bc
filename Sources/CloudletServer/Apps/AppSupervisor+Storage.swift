import CloudletPostgres
import CloudletRuntime
import CloudletSQLite
import Foundation
import ServiceLifecycle

/// An app's data as the supervisor opened it: its stores, its files, and the upkeep its database
/// needs while served.
struct AppStorage {
    var stores: AppStores
    var files: any FileStorage
    /// Checkpoints and statistics of an app's SQLite file; nil where the database keeps itself.
    var upkeep: (any Service)?
    /// Where the app's rate limits are kept when every node shares them; nil: each limiter keeps
    /// its own in memory.
    var sharedRateLimits: (any RateLimitStore)?
}

extension AppSupervisor {
    /// Opens the data of `record`'s app where the registry is: a SQLite file in the data folder
    /// with its files beside it, or the app's schema in the registry's PostgreSQL database.
    func openStorage(_ record: AppRecord) async throws -> AppStorage {
        let fileURLs = FileURLs(origin: serverOrigin, mountPath: configuration.normalizedMountPath, appId: record.id)
        if let database = registry.database { return try await openStorage(record, in: database, fileURLs: fileURLs) }
        let database = try SQLiteAppDatabase(
            path: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("apps/\(record.id).sqlite").path,
            durability: configuration.durability, maximumObjectBytes: configuration.maximumObjectBytes, fileURLs: fileURLs)
        let files = try LocalFileStorage(dataDirectory: configuration.dataDirectory, appId: record.id, contentHash: CryptoSHA256.self)
        // Nothing uploads to the app before it is served: what its folder holds of uploads was left by a crash.
        try files.removeAbandonedUploads(olderThan: Date())
        return AppStorage(stores: AppStores(database), files: files, upkeep: database.maintenance)
    }

    /// The app's schema in `database`, its files' bytes there too, its rate limits shared by every node.
    private func openStorage(_ record: AppRecord, in database: PostgresDatabase, fileURLs: FileURLs) async throws -> AppStorage {
        let schema = PostgresAppSchema(appId: record.id)
        return AppStorage(
            stores: try await AppStores(database, schema: schema, maximumObjectBytes: configuration.maximumObjectBytes, fileURLs: fileURLs),
            files: try await PostgresFileStorage(database, schema: schema), upkeep: nil,
            sharedRateLimits: try await PostgresRateLimitStore(database, schema: schema, nodes: configuration.nodes))
    }

    /// The rate limiter of `policy`, its state in `sharedState` if nodes share it, else in memory of its own.
    func rateLimiter(_ policy: RateLimitPolicy, sharedState: (any RateLimitStore)?) -> RateLimiter {
        RateLimiter(policy: policy, store: sharedState ?? InMemoryRateLimitStore(), clock: clock)
    }
}
