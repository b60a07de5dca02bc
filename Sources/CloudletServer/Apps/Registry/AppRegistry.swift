import Cloudlet
import CloudletPostgres
import CloudletRuntime
import Foundation

/// The apps a host serves: create, list, show, update, delete, and key rotation
/// (``rotateKey(of:_:)``). Kept in the data folder's `host.sqlite`, or in the PostgreSQL database
/// several nodes share. Used by the server, its admin API and `cloudlet apps`, which may run while
/// a server runs: the server picks changes up by itself.
///
/// ```swift
/// let registry = try AppRegistry(dataDirectory: "./data")
/// var settings = AppSettings()
/// settings.workerCount = 2
/// let created = try await registry.create("shop", settings: settings)
/// print(created.masterKey) // shown this once; the registry keeps only its hash
/// ```
public final class AppRegistry: Sendable {
    /// The most apps one registry holds.
    public static let maximumApps = 1_000

    /// An app just created, with its keys as they are (the master key is not kept as it is).
    public struct CreatedApp: Sendable {
        /// The app as the registry keeps it.
        public var record: AppRecord
        /// Its client key.
        public var clientKey: String
        /// Its master key, of which the registry keeps only the hash.
        public var masterKey: String
    }

    let storage: any RegistryStorage
    /// The PostgreSQL database the registry is in, where its apps' data is too; nil for `host.sqlite`.
    package let database: CloudletPostgres.PostgresDatabase?

    /// The registry in `<dataDirectory>/host.sqlite`, created if needed.
    public init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        storage = SQLiteRegistryStorage(
            database: try HostDatabase(path: URL(fileURLWithPath: dataDirectory).appendingPathComponent("host.sqlite").path))
        database = nil
    }

    /// The registry in `database`'s `cloudlet` schema, made or brought up to date first; the apps
    /// it lists keep their data in `database` too.
    public init(database: CloudletPostgres.PostgresDatabase) async throws {
        storage = try await PostgresRegistryStorage(database)
        self.database = database
    }

    /// The registry `configuration` names: in its PostgreSQL database if it has one, else in its
    /// data folder's `host.sqlite`.
    public static func open(_ configuration: ServerConfiguration) async throws -> AppRegistry {
        guard let url = configuration.database else { return try AppRegistry(dataDirectory: configuration.dataDirectory) }
        return try await AppRegistry(database: CloudletPostgres.PostgresDatabase(url: url))
    }

    /// Where the registry is kept, as the server's banner says it.
    public var place: String {
        database == nil ? "host.sqlite" : "the database"
    }

    /// Every app, by id.
    public func list() async throws -> [AppRecord] {
        try await storage.records(nil)
    }

    /// The app `id`, or nil.
    public func app(_ id: String) async throws -> AppRecord? {
        try await storage.records(id).first
    }

    /// Creates app `id` with `settings` and the given keys (random ones where nil). Throws 137 if it
    /// exists, or one whose id differs only in case (their files would share a folder on a file
    /// system that ignores case); 142 if the id is invalid (``ParseNames/newAppIdProblem(_:)``) or
    /// the registry is full.
    public func create(
        _ id: String, settings: AppSettings = AppSettings(), clientKey: String? = nil, masterKey: String? = nil
    ) async throws -> CreatedApp {
        if let problem = ParseNames.newAppIdProblem(id) { throw AppSettings.invalid("invalid app id \(id): \(problem)") }
        let clientKey = clientKey ?? AppKeys.randomKey(), masterKey = masterKey ?? AppKeys.randomKey()
        let record = try await storage.insert(
            id, settings: settings, keys: [(.client, clientKey), (.master, Self.stored(masterKey, .master))], at: Self.now())
        return CreatedApp(record: record, clientKey: clientKey, masterKey: masterKey)
    }

    /// Changes the settings of app `id` with `change`. Throws 101 if there is no such app.
    @discardableResult
    public func update(_ id: String, _ change: @Sendable (inout AppSettings) throws -> Void) async throws -> AppRecord {
        try await storage.update(id, change)
    }

    /// Deletes app `id` and its keys (not its data). Throws 101 if there is no such app.
    public func delete(_ id: String) async throws {
        try await storage.delete(id)
    }

    /// A number that changes whenever another process or node (`cloudlet apps`, another node's
    /// admin API, or this registry's own writes) changed the registry.
    func changeVersion() async throws -> Int {
        try await storage.changeVersion()
    }

    // MARK: What every storage shares

    static func notFound(_ id: String) -> ParseError {
        ParseError(code: 101, message: "no app \(id)", httpStatus: 404)
    }

    /// Throws 137 when app `id` (`existing`, the id of an app equal to it whatever the case) exists,
    /// 142 when the registry holds `count` apps and that is its most.
    static func checkRoom(for id: String, existing: String?, count: Int) throws {
        if let existing {
            let message = existing == id ? "app \(id) exists already" : "app \(id) differs from the app \(existing) only in case"
            throw ParseError(code: 137, message: message, httpStatus: 409)
        }
        guard count < maximumApps else { throw AppSettings.invalid("the registry holds \(maximumApps) apps already") }
    }

    /// The record of a stored app: its settings document read, its keys oldest first.
    static func record(id: String, settings: String, keys: [StoredAppKey], createdAt: String, updatedAt: String) throws -> AppRecord {
        AppRecord(id: id, settings: try self.settings(settings), keys: keys, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// The settings a stored document holds.
    static func settings(_ document: String) throws -> AppSettings {
        try AppSettings().reading(try JSONParser.parse(document).objectValue ?? [:])
    }

    /// A stored key, or nil for a kind or state this version does not know.
    static func key(kind: String, value: String, state: String, createdAt: String) -> StoredAppKey? {
        guard let kind = AppKeyKind(rawValue: kind), let state = StoredAppKey.State(rawValue: state) else { return nil }
        return StoredAppKey(kind: kind, value: value, state: state, createdAt: createdAt)
    }

    /// The settings as the registry keeps them: one JSON document.
    static func document(_ settings: AppSettings) -> String {
        JSONWriter.string(.object(settings.json))
    }

    /// Now, as the registry's times are kept: ISO 8601.
    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }
}
