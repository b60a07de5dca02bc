import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite

/// A store a storage test runs on: SQLite on a real database file, PostgreSQL in a schema of its
/// own on the tests' real server. One test body runs on each with `@Test(arguments: TestStore.allCases)`.
enum TestStore: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Runs `body` with what `open` makes of a new, empty app of this store (such as
    /// `TestApp.workQueue`), and a way to open the same app again as another process would: a new
    /// database connection on SQLite, a second node's pool on PostgreSQL.
    func with<Store>(
        _ open: @escaping (TestApp) -> () async throws -> Store, _ body: (Store, _ reopen: () async throws -> Store) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            try await TemporaryStorage.with { database, file in
                try await body(try await open(.sqlite(database))()) { try await open(.sqlite(try SQLiteAppDatabase(path: file.path)))() }
            }
        case .postgres:
            try await TemporaryPostgres.with { database, schema in
                try await TemporaryPostgres.secondNode { other in
                    try await body(try await open(.postgres(database, schema))()) { try await open(.postgres(other, schema))() }
                }
            }
        }
    }
}

/// A new app on a store under test, whose stores the tests open.
enum TestApp {
    case sqlite(SQLiteAppDatabase)
    case postgres(PostgresDatabase, PostgresAppSchema)

    func workQueue() async throws -> any WorkQueue {
        switch self {
        case .sqlite(let database): SQLiteWorkQueue(database)
        case .postgres(let database, let schema): try await PostgresWorkQueue(database, schema: schema)
        }
    }

    func globalConfig() async throws -> any GlobalConfigStorage {
        switch self {
        case .sqlite(let database): SQLiteGlobalConfigStore(database)
        case .postgres(let database, let schema): try await PostgresGlobalConfigStore(database, schema: schema)
        }
    }

    func fileUsage() async throws -> any FileUsageStorage {
        switch self {
        case .sqlite(let database): SQLiteFileUsageStore(database)
        case .postgres(let database, let schema): try await PostgresFileUsageStore(database, schema: schema)
        }
    }

    /// The app's count of file bytes, and a way to store an object as its object store does.
    func fileUsageWithObjects() async throws -> (usage: any FileUsageStorage, insert: @Sendable (ParseObject) async throws -> Void) {
        switch self {
        case .sqlite(let database):
            let objects: any ObjectStorage = SQLiteObjectStore(database)
            return (SQLiteFileUsageStore(database), { try await objects.insert($0, outbox: nil) })
        case .postgres(let database, let schema):
            let objects = try await PostgresObjectStore(database, schema: schema)
            return (try await PostgresFileUsageStore(database, schema: schema), { try await objects.insert($0, outbox: nil) })
        }
    }

    /// The app's files: in a `files` folder beside the SQLite database, in the app's schema on PostgreSQL.
    func fileStorage() async throws -> any FileStorage {
        switch self {
        case .sqlite(let database):
            try LocalFileStorage(folder: URL(fileURLWithPath: database.path).deletingLastPathComponent().appendingPathComponent("files").path)
        case .postgres(let database, let schema): try await PostgresFileStorage(database, schema: schema)
        }
    }

    /// The app's job runs and the work queue their runs go to.
    func jobs() async throws -> (jobs: any JobStorage, work: any WorkQueue) {
        switch self {
        case .sqlite(let database): (SQLiteJobStore(database), SQLiteWorkQueue(database))
        case .postgres(let database, let schema): (try await PostgresJobStore(database, schema: schema), try await PostgresWorkQueue(database, schema: schema))
        }
    }

    func hookRuns() async throws -> any HookRunStorage {
        switch self {
        case .sqlite(let database): SQLiteHookRunStore(database)
        case .postgres(let database, let schema): try await PostgresHookRunStore(database, schema: schema)
        }
    }

    /// The app's accounts, and its objects as accounts' tests write them.
    func accounts() async throws -> (accounts: any AccountStorage, objects: ObjectStoreUnderTest) {
        switch self {
        case .sqlite(let database): (SQLiteAccountStore(database), try await .opening(self))
        case .postgres(let database, let schema): (try await PostgresAccountStore(database, schema: schema), try await .opening(self))
        }
    }
}

/// The objects of an app under test, written through its store as the server writes them.
struct TestObjects: Sendable {
    let objects: any ObjectStorage

    init(_ objects: any ObjectStorage) {
        self.objects = objects
    }

    func insert(_ object: ParseObject, relations: [String: RelationChange] = [:]) async throws {
        try await objects.insert(object, relations: relations, outbox: nil, alongside: [])
    }

    func fetch(_ className: String, _ id: String) async throws -> ParseObject? {
        try await objects.fetch(className, id: id)
    }

    func find(_ query: ParseQuery) async throws -> [ParseObject] {
        try await objects.find(StorageQuery(query: query, readerIdentities: nil))
    }
}

extension TestApp {
    /// The app's class schemas, and its objects.
    func schemas() async throws -> (schemas: any SchemaStorage, objects: TestObjects) {
        switch self {
        case .sqlite(let database): (SQLiteSchemaStore(database), TestObjects(AppStores(database).objects))
        case .postgres(let database, let schema):
            (try await PostgresSchemaStore(database, schema: schema), TestObjects(try await PostgresObjectStore(database, schema: schema)))
        }
    }

    /// The app's push fan-out, the work queue its deliveries go to, and its objects.
    func push() async throws -> (push: any PushDeliveryStorage, work: any WorkQueue, objects: TestObjects) {
        switch self {
        case .sqlite(let database): (SQLitePushStore(database), SQLiteWorkQueue(database), TestObjects(AppStores(database).objects))
        case .postgres(let database, let schema):
            (
                try await PostgresPushStore(database, schema: schema), try await PostgresWorkQueue(database, schema: schema),
                TestObjects(try await PostgresObjectStore(database, schema: schema))
            )
        }
    }
}

extension TestStore {
    /// Runs `body` with `configuration` keeping the apps' data on this store: in its data folder's
    /// SQLite files as it is, or in a PostgreSQL database of its own (as `serve --database` keeps
    /// it), dropped after.
    func configuring<Value>(_ configuration: ServerConfiguration, _ body: (ServerConfiguration) async throws -> Value) async throws -> Value {
        switch self {
        case .sqlite:
            return try await body(configuration)
        case .postgres:
            return try await TemporaryPostgres.database { url in
                var configuration = configuration
                configuration.database = url
                return try await body(configuration)
            }
        }
    }

    /// Serves `registry` as app `test` through the router, as
    /// ``ParseTestClient/withRouter(registry:configuration:_:)`` does, its data on this store: SQLite
    /// files in a throwaway folder, or a PostgreSQL database of its own (as `serve --database` keeps it).
    func withRouter<Value: Sendable>(
        registry: HookRegistry, configuration: ServerConfiguration = .testing, _ body: @Sendable (ParseTestClient) async throws -> Value
    ) async throws -> Value {
        try await withServer(registry: registry, configuration: configuration) { client, _ in try await body(client) }
    }

    /// As ``withRouter(registry:configuration:_:)``, with the server too (its registry, its apps'
    /// stores), as ``ParseTestClient/withServer(registry:configuration:_:)`` gives it.
    func withServer<Value: Sendable>(
        registry: HookRegistry, configuration: ServerConfiguration = .testing,
        _ body: @Sendable (ParseTestClient, CloudletApplication) async throws -> Value
    ) async throws -> Value {
        try await configuring(configuration) { configuration in
            try await ParseTestClient.withServer(registry: registry, configuration: configuration, body)
        }
    }
}
