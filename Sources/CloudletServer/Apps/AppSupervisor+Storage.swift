import CloudletRuntime
import Foundation

extension AppSupervisor {
    /// Opens the data of `record`'s app where the registry is: a SQLite file in the data folder
    /// with its files beside it, or the app's schema in the registry's PostgreSQL database.
    func openStorage(_ record: AppRecord) async throws -> AppStorage {
        let fileURLs = FileURLs(origin: serverOrigin, mountPath: configuration.normalizedMountPath, appId: record.id)
        let storage = try await AppStorage.open(record.id, in: registry.database, configuration: configuration, fileURLs: fileURLs)
        // Nothing uploads to an app's folder before it is served: what it holds of uploads was left
        // by a crash. (On PostgreSQL other nodes may be uploading; every upload sweeps stages abandoned for an hour.)
        if registry.database == nil { try await storage.files.removeAbandonedUploads(olderThan: Date()) }
        return storage
    }

    /// The rate limiter of `policy`, its state in `sharedState` if nodes share it, else in memory of its own.
    func rateLimiter(_ policy: RateLimitPolicy, sharedState: (any RateLimitStore)?) -> RateLimiter {
        RateLimiter(policy: policy, store: sharedState ?? InMemoryRateLimitStore(), clock: clock)
    }
}
