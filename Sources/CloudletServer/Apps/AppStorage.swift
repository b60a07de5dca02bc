import CloudletPostgres
import CloudletRuntime
import CloudletSQLite
import Foundation
import ServiceLifecycle

/// An app's data as opened where its registry keeps it: its stores, its files, and the upkeep its
/// database needs while served. The server opens it to serve the app; the `cloudlet` commands on
/// one app's data (`logs`, `jobs`, `push`, `files prune`) open it the same way.
package struct AppStorage {
    /// The app's stores.
    package var stores: AppStores
    /// The app's files: in the data folder's `files/<id>/` beside a SQLite file, in the app's schema on PostgreSQL.
    package var files: any FileStorage
    /// Checkpoints and statistics of an app's SQLite file; nil where the database keeps itself.
    package var upkeep: (any Service)?
    /// Where the app's rate limits are kept when every node shares them; nil: each limiter keeps
    /// its own in memory.
    package var sharedRateLimits: (any RateLimitStore)?

    /// Opens the data of app `appId`: its schema in `database` (made or brought up to date first),
    /// the PostgreSQL database of the registry that lists it, or without one, a SQLite file in
    /// `configuration`'s data folder (made if missing) with its files beside it. `File` values
    /// read back get their URLs from `fileURLs`.
    package static func open(
        _ appId: String, in database: PostgresDatabase?, configuration: ServerConfiguration, fileURLs: FileURLs? = nil
    ) async throws -> AppStorage {
        if let database {
            let schema = PostgresAppSchema(appId: appId)
            return AppStorage(
                stores: try await AppStores(database, schema: schema, maximumObjectBytes: configuration.maximumObjectBytes, fileURLs: fileURLs),
                files: try await PostgresFileStorage(database, schema: schema), upkeep: nil,
                sharedRateLimits: try await PostgresRateLimitStore(database, schema: schema, nodes: configuration.nodes))
        }
        let database = try SQLiteAppDatabase(
            path: sqlitePath(of: appId, in: configuration.dataDirectory), durability: configuration.durability,
            maximumObjectBytes: configuration.maximumObjectBytes, fileURLs: fileURLs)
        let files = try LocalFileStorage(dataDirectory: configuration.dataDirectory, appId: appId, contentHash: CryptoSHA256.self)
        return AppStorage(stores: AppStores(database), files: files, upkeep: database.maintenance)
    }

    /// The path of app `appId`'s SQLite file in the data folder `dataDirectory`.
    package static func sqlitePath(of appId: String, in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("apps/\(appId).sqlite").path
    }
}
