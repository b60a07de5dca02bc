import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The apps a host serves, kept in its `host.sqlite`: create, list, show, update, delete, and key
/// rotation (``rotateKey(of:_:)``). Used by the server, its admin API and `cloudlet apps`, which may
/// run while a server runs: the server picks changes up by itself.
///
/// ```swift
/// let registry = try AppRegistry(dataDirectory: "./data")
/// var settings = AppSettings()
/// settings.workerCount = 2
/// let created = try registry.create("shop", settings: settings)
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

    let database: HostDatabase

    /// The registry in `<dataDirectory>/host.sqlite`, created if needed.
    public init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        database = try HostDatabase(path: URL(fileURLWithPath: dataDirectory).appendingPathComponent("host.sqlite").path)
    }

    /// Every app, by id.
    public func list() throws -> [AppRecord] {
        try database.queue.read { db in
            let keys = Dictionary(grouping: try Self.fetchKeys(nil, db), by: \.app)
            return try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY id").map { row in
                let id: String = row["id"]
                return try Self.record(row, keys: keys[id] ?? [])
            }
        }
    }

    /// The app `id`, or nil.
    public func app(_ id: String) throws -> AppRecord? {
        try database.queue.read { db in try Self.fetchApp(id, db) }
    }

    /// Creates app `id` with `settings` and the given keys (random ones where nil). Throws 137 if it
    /// exists, or one whose id differs only in case (their files would share a folder on a file
    /// system that ignores case); 142 if the id is invalid (``ParseNames/newAppIdProblem(_:)``) or
    /// the registry is full.
    public func create(_ id: String, settings: AppSettings = AppSettings(), clientKey: String? = nil, masterKey: String? = nil) throws -> CreatedApp {
        try Self.validate(id)
        let clientKey = clientKey ?? AppKeys.randomKey(), masterKey = masterKey ?? AppKeys.randomKey()
        return try database.queue.write { db in
            if let existing = try String.fetchOne(db, sql: "SELECT id FROM apps WHERE id = ? COLLATE NOCASE", arguments: [id]) {
                let message = existing == id ? "app \(id) exists already" : "app \(id) differs from the app \(existing) only in case"
                throw ParseError(code: 137, message: message, httpStatus: 409)
            }
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM apps") ?? 0 < Self.maximumApps else {
                throw AppSettings.invalid("the registry holds \(Self.maximumApps) apps already")
            }
            let now = HostDatabase.now()
            try Self.insertApp(id, settings: settings, at: now, db)
            try Self.insertKey(id, .client, value: clientKey, at: now, db)
            try Self.insertKey(id, .master, value: HexBytes.encode(AppKeys.hash(masterKey)), at: now, db)
            return CreatedApp(record: try Self.fetchApp(id, db)!, clientKey: clientKey, masterKey: masterKey)
        }
    }

    /// Changes the settings of app `id` with `change`. Throws 101 if there is no such app.
    @discardableResult
    public func update(_ id: String, _ change: (inout AppSettings) throws -> Void) throws -> AppRecord {
        try database.queue.write { db in
            guard var settings = try Self.fetchApp(id, db)?.settings else { throw Self.notFound(id) }
            try change(&settings)
            try db.execute(
                sql: "UPDATE apps SET settings = ?, updated_at = ? WHERE id = ?", arguments: [Self.document(settings), HostDatabase.now(), id])
            return try Self.fetchApp(id, db)!
        }
    }

    /// Deletes app `id` and its keys (not its data file). Throws 101 if there is no such app.
    public func delete(_ id: String) throws {
        try database.queue.write { db in
            try db.execute(sql: "DELETE FROM apps WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { throw Self.notFound(id) }
        }
    }

    static func notFound(_ id: String) -> ParseError {
        ParseError(code: 101, message: "no app \(id)", httpStatus: 404)
    }

    static func validate(_ id: String) throws {
        if let problem = ParseNames.newAppIdProblem(id) { throw AppSettings.invalid("invalid app id \(id): \(problem)") }
    }

    // MARK: Rows

    static func fetchApp(_ id: String, _ db: Database) throws -> AppRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM apps WHERE id = ?", arguments: [id]) else { return nil }
        return try record(row, keys: try fetchKeys(id, db))
    }

    static func fetchKeys(_ id: String?, _ db: Database) throws -> [(app: String, key: StoredAppKey)] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM app_keys WHERE ? IS NULL OR app = ? ORDER BY rowid", arguments: [id, id])
        return rows.compactMap { row in
            guard let kind = AppKeyKind(rawValue: row["kind"]), let state = StoredAppKey.State(rawValue: row["state"]) else { return nil }
            return (row["app"], StoredAppKey(kind: kind, value: row["value"], state: state, createdAt: row["created_at"]))
        }
    }

    private static func record(_ row: Row, keys: [(app: String, key: StoredAppKey)]) throws -> AppRecord {
        let document = try JSONParser.parse(row["settings"] as String).objectValue ?? [:]
        return AppRecord(
            id: row["id"], settings: try AppSettings().reading(document), keys: keys.map(\.key), createdAt: row["created_at"],
            updatedAt: row["updated_at"])
    }

    static func insertApp(_ id: String, settings: AppSettings, at now: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO apps (settings, created_at, updated_at, id) VALUES (?, ?, ?, ?)", arguments: [document(settings), now, now, id])
    }

    static func insertKey(_ id: String, _ kind: AppKeyKind, value: String, at now: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO app_keys (app, kind, value, state, created_at) VALUES (?, ?, ?, 'active', ?)",
            arguments: [id, kind.rawValue, value, now])
    }

    /// The settings as the registry keeps them: one JSON document.
    private static func document(_ settings: AppSettings) -> String {
        JSONWriter.string(.object(settings.json))
    }
}
