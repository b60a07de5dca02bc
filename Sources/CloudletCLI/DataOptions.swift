import ArgumentParser
import Cloudlet
import CloudletPostgres
import CloudletServer
import Foundation

/// Where the host's data is, as `serve` takes it: the data folder, or the PostgreSQL database
/// every node shares.
struct DataOptions: ParsableArguments {
    @Option(help: "Folder for the databases (CLOUDLET_DATA). Default ./data.") var data: String?
    @Option(help: "PostgreSQL database, as serve's (CLOUDLET_DATABASE, which keeps its password out of the process list). Default: the data folder.")
    var database: String?
    @Flag(help: "Print JSON.") var json = false

    /// The server's configuration as these options and the environment name the data.
    var configuration: ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration(dataDirectory: data ?? environment["CLOUDLET_DATA"] ?? "./data")
        configuration.database = database ?? environment["CLOUDLET_DATABASE"]
        return configuration
    }

    /// The registry: in the PostgreSQL database if one is named, else in the data folder's `host.sqlite`.
    func registry() async throws -> AppRegistry {
        try await AppRegistry.open(configuration)
    }

    /// Runs `body` with the registry, and closes the database's connections after.
    func withRegistry<Value>(_ body: (AppRegistry) async throws -> Value) async throws -> Value {
        let registry = try await registry()
        defer { registry.database?.close() }
        return try await body(registry)
    }
}

/// One app's data, as the commands that read or change it straight in the store take it (`logs`,
/// `jobs`, `push`, `files prune`): the app id, and the data folder or the PostgreSQL database. The
/// app's stores and files are then opened as the server opens them, so that the commands see
/// nothing but the storage protocols and work alike on either store, with or without a server.
struct AppDataOptions: ParsableArguments {
    @Argument(help: "The app id.") var app: String
    @OptionGroup var place: DataOptions

    /// Whether to print JSON.
    var json: Bool { place.json }

    /// Runs `body` with the registry, and closes the database's connections after.
    func withRegistry<Value>(_ body: (AppRegistry) async throws -> Value) async throws -> Value {
        try await place.withRegistry(body)
    }

    /// Runs `body` with the app's data, nil while it has none: on SQLite while the data folder has
    /// no file of the app (it was never served; the folder is left as it is), on PostgreSQL while
    /// the registry has no such app. The database's connections are closed after.
    func withStorage<Value>(_ body: (AppStorage?) async throws -> Value) async throws -> Value {
        let configuration = place.configuration
        guard ParseNames.isValidAppId(app) else { return try await body(nil) }
        guard configuration.database != nil else {
            guard FileManager.default.fileExists(atPath: AppStorage.sqlitePath(of: app, in: configuration.dataDirectory)) else {
                return try await body(nil)
            }
            return try await body(try await AppStorage.open(app, in: nil, configuration: configuration))
        }
        return try await withRegistry { registry in
            guard try await registry.app(app) != nil else { return try await body(nil) }
            return try await body(try await AppStorage.open(app, in: registry.database, configuration: configuration))
        }
    }

    /// Runs `body` with the app's data, which must exist: else the command fails with `no app …`.
    func withExistingStorage<Value>(_ body: (AppStorage) async throws -> Value) async throws -> Value {
        try await withStorage { storage in
            guard let storage else {
                let configuration = place.configuration
                throw ValidationError("no app \(app) in \(configuration.database == nil ? configuration.dataDirectory : "the database")")
            }
            return try await body(storage)
        }
    }
}
