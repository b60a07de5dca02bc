import CloudletPostgres
import CloudletRuntime
import CloudletSQLite
import Foundation
import GRDB
import PostgresNIO

/// Moves apps from a data folder's SQLite files into a PostgreSQL database (`cloudlet migrate
/// --from`): for each app, in one PostgreSQL transaction, its schema made, its tables copied row
/// for row (``AppTableFamilies``: nothing is saved again, so no hook runs and no after hook is
/// queued; what the app owed is copied as owed), the indexes its classes record made, and its
/// registry record stored with its keys as kept; then its files, if a destination is given.
///
/// The server of the data folder must be stopped: the copy holds the folder's lock
/// (``DataFolderLock``) and refuses to start while a server does. An app the PostgreSQL registry
/// lists already, or whose schema holds objects, is refused unless `replace`, which drops what
/// PostgreSQL holds of it first.
///
/// ```swift
/// let copy = AppCopyToPostgres(dataDirectory: "./data", database: database)
/// for report in try await copy.run(apps: ["shop"]) { print(report.appId, report.rows) }
/// ```
public struct AppCopyToPostgres: Sendable {
    /// What the copy of one app brought over.
    public struct Report: Sendable {
        public var appId: String
        /// Each table copied and its rows, in the order copied.
        public var rows: [(table: String, count: Int)]
        /// The files copied, or nil where no file destination was given.
        public var files: Int?
    }

    /// The files' store of the app given its id: where the copy puts its files.
    public typealias FileDestination = @Sendable (String) async throws -> any FileStorage

    let dataDirectory: String
    let database: CloudletPostgres.PostgresDatabase

    /// A copy from the data folder `dataDirectory` into `database`.
    public init(dataDirectory: String, database: CloudletPostgres.PostgresDatabase) {
        self.dataDirectory = dataDirectory
        self.database = database
    }

    /// Copies the apps `ids` (every app of the folder's registry if nil) and, with `files`, their
    /// files from the folder's `files/<id>/` into its destinations; answers what each copy brought.
    /// Throws ``AppCopyRefusal`` before copying anything when the folder is served or an id unknown;
    /// for an app PostgreSQL holds already (unless `replace`), after the apps before it are copied.
    public func run(apps ids: [String]? = nil, replace: Bool = false, files: FileDestination? = nil) async throws -> [Report] {
        let lock: DataFolderLock
        do { lock = try DataFolderLock(dataDirectory: dataDirectory) } catch let failure as DataFolderLock.Failure {
            throw AppCopyRefusal(description: "\(failure.description); stop its server before copying its apps")
        }
        defer { withExtendedLifetime(lock) {} }
        guard FileManager.default.fileExists(atPath: folder("host.sqlite")) else {
            throw AppCopyRefusal(description: "\(dataDirectory) holds no app registry (host.sqlite)")
        }
        let records = try await AppRegistry(dataDirectory: dataDirectory).list()
        let chosen = try ids.map { ids in
            try ids.map { id in
                guard let record = records.first(where: { $0.id == id }) else { throw AppCopyRefusal(description: "\(dataDirectory) has no app \(id)") }
                return record
            }
        } ?? records
        _ = try await AppRegistry(database: database)  // the registry's schema, made or brought up to date
        var reports: [Report] = []
        for record in chosen {
            var report = try await copy(record, replace: replace)
            if let files {
                let source = try LocalFileStorage(dataDirectory: dataDirectory, appId: record.id, contentHash: CryptoSHA256.self)
                report.files = try await FileCopy.copy(from: source, to: try await files(record.id))
            }
            reports.append(report)
        }
        return reports
    }

    /// Copies the rows of `record`'s app and the record itself, in one transaction.
    private func copy(_ record: AppRecord, replace: Bool) async throws -> Report {
        let path = folder("apps/\(record.id).sqlite")
        // Opened as its server would open it first (made, empty, if it never was), so that its
        // tables are those of this version.
        try FileManager.default.createDirectory(atPath: folder("apps"), withIntermediateDirectories: true)
        _ = try SQLiteAppDatabase(path: path)
        let source = try DatabaseQueue(path: path)
        let schema = PostgresAppSchema(appId: record.id)
        let logger = database.logger
        let rows = try await database.transaction { connection in
            if replace {
                try await PostgresMigrations.lock(schema, on: connection, logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema.quoted) CASCADE"), logger: logger)
            }
            try await PostgresMigrations.apply(to: schema, on: connection, logger: logger)
            if !replace { try await refuseIfHeld(record.id, schema, on: connection) }
            var rows: [(table: String, count: Int)] = []
            for table in AppTableFamilies.objects + AppTableFamilies.relations + AppTableFamilies.accounts + AppTableFamilies.settings {
                rows.append((table.name, try await table.copy(from: source, to: schema, on: connection, logger: logger)))
            }
            // What the `_PushStatus` rows' trigger queued goes: the rows copied next are what is owed.
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema.quoted).push_jobs"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema.quoted).work_queue"), logger: logger)
            for table in AppTableFamilies.owed {
                rows.append((table.name, try await table.copy(from: source, to: schema, on: connection, logger: logger)))
            }
            try await PostgresSchemaIndexes.createRecorded(in: schema, on: connection, logger: logger)
            try await PostgresRegistryStorage.insertCopied(record, replacing: replace, on: connection, logger: logger)
            return rows
        }
        return Report(appId: record.id, rows: rows, files: nil)
    }

    /// Throws when PostgreSQL holds the app already: its registry lists it, or its schema holds objects.
    private func refuseIfHeld(_ id: String, _ schema: PostgresAppSchema, on connection: PostgresConnection) async throws {
        var held = try await PostgresRegistryStorage.lists(id, on: connection, logger: database.logger)
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: "SELECT 1 FROM \(schema.quoted).objects LIMIT 1"), logger: database.logger) {
            held = true
        }
        guard !held else {
            throw AppCopyRefusal(description: "the database holds app \(id) already; --replace drops what it holds of it and copies it again")
        }
    }

    private func folder(_ path: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent(path).path
    }
}

/// Why a copy did not start, or stopped at an app, said for the operator.
public struct AppCopyRefusal: Error, CustomStringConvertible {
    public let description: String
}
