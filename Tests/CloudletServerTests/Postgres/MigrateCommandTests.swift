import Cloudlet
@testable import CloudletRuntime
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite
@testable import CloudletServer

/// `cloudlet migrate`: pending schema changes applied once when several runs (or nodes) start at
/// once, and apps copied from a data folder's SQLite files into PostgreSQL row for row, so that
/// their users, sessions, roles, objects, schemas, config, owed work and keys answer there as they
/// did on SQLite.
@Suite struct MigrateCommandTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let master = Caller(isMaster: true, requestId: "r")

    static func object(_ className: String, _ id: String, _ fields: [String: ParseValue], acl: ParseACL? = nil, age: Double = 0) -> ParseObject {
        var object = ParseObject(className: className, fields: fields)
        object.objectId = id
        object.createdAt = now + age
        object.updatedAt = now + age + 1
        object.acl = acl
        return object
    }

    @Test func migrationsRunAtOnceApplyEachChangeOnceAndAgainNothing() async throws {
        try await TemporaryPostgres.database { url in
            let database = try PostgresDatabase(url: url, maximumConnections: 4)
            defer { database.close() }
            let registry = try await AppRegistry(database: database)
            _ = try await registry.create("shop")
            _ = try await registry.create("blog")
            let second = try PostgresDatabase(url: url, maximumConnections: 4)
            defer { second.close() }
            async let first = PendingMigrations.apply(in: database)
            async let other = PendingMigrations.apply(in: second)
            let runs = try await [first, other]
            let every = PostgresMigrations.all.map(\.name)
            for schema in ["app_shop", "app_blog"] {
                let applied = runs.flatMap { run in run.filter { $0.schema == schema }.flatMap(\.changes) }
                #expect(applied.sorted() == every.sorted(), "\(schema): \(applied)")
            }
            let again = try await PendingMigrations.apply(in: database)
            #expect(again.map(\.schema) == ["cloudlet", "app_blog", "app_shop"])
            #expect(again.allSatisfy { $0.changes.isEmpty })
        }
    }

    /// An app on SQLite made through its stores, its copy into PostgreSQL, then `body` with both.
    static func withCopiedApp(_ body: (Fixture) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TemporaryPostgres.database { url in
            let created = try await AppRegistry(dataDirectory: folder).create("Shop", masterKey: "shop-master-key")
            try FileManager.default.createDirectory(atPath: folder + "/apps", withIntermediateDirectories: true)
            let sqlite = try SQLiteAppDatabase(path: folder + "/apps/Shop.sqlite")
            let stores = AppStores(sqlite)
            let afterHook = try await Fixture.fill(stores, sqlite)
            let files = try LocalFileStorage(dataDirectory: folder, appId: "Shop")
            _ = try await files.commit(
                try await files.stage(Fixture.bytes(of: "hello file"), maximumBytes: 100), as: Fixture.fileName, contentType: "text/plain",
                metadata: ["owner": .string("u1")])
            let database = try PostgresDatabase(url: url, maximumConnections: 4)
            defer { database.close() }
            let copied = folder + "/copied-files"
            let reports = try await AppCopyToPostgres(dataDirectory: folder, database: database).run(files: { id in
                try LocalFileStorage(folder: copied + "/" + id)
            })
            try await body(
                Fixture(
                    folder: folder, database: database, sqlite: sqlite, stores: stores, schema: PostgresAppSchema(appId: "Shop"),
                    masterKey: created.masterKey, afterHookId: afterHook, reports: reports, copiedFiles: copied + "/Shop"))
        }
    }

    @Test func aCopiedAppAnswersOnPostgresAsOnSQLite() async throws {
        try await Self.withCopiedApp { fixture in
            let schema = fixture.schema, database = fixture.database
            #expect(fixture.reports.map(\.appId) == ["Shop"])
            #expect(fixture.reports.first?.files == 1)
            let accounts = try await PostgresAccountStore(database, schema: schema)
            #expect(try await accounts.passwordHash(ofUser: "u1") == "hash-u1")
            #expect(try await accounts.session(tokenHash: "token-hash-u1")?.userId == "u1")
            #expect(try await accounts.roleNames(ofUser: "u1") == ["admin"])
            let objects = try await PostgresObjectStore(database, schema: schema)
            for reader in [nil, ["*"], ["*", "u1"], ["*", "role:admin"]] as [[String]?] {
                let query = StorageQuery(query: ParseQuery("Note", constraints: [:], order: ["rank"], limit: 100), readerIdentities: reader)
                let expected = try await fixture.stores.objects.find(query)
                #expect(!expected.isEmpty)
                #expect(try await objects.find(query) == expected, "reader \(String(describing: reader))")
            }
            let likes: [String: ParseValue] = [
                "$relatedTo": .object([
                    "object": .object(["__type": .string("Pointer"), "className": .string("Note"), "objectId": .string("n1")]),
                    "key": .string("likes"),
                ])
            ]
            let related = StorageQuery(query: ParseQuery("_User", constraints: likes), readerIdentities: nil)
            #expect(try await objects.find(related).map(\.objectId) == ["u1"])
            let schemas = try await PostgresSchemaStore(database, schema: schema)
            let note = try await schemas.storedClass("Note")
            #expect(note == (try await fixture.stores.schemas.storedClass("Note")))
            #expect(note?.permissions?.grants[.find]?.entries == ["role:admin"])
            let indexName = PostgresSchemaIndexes.indexName("by_rank", "Note")
            var found = 0
            for try await n in try await database.client.query(
                "SELECT count(*)::int FROM pg_indexes WHERE schemaname = \(schema.name) AND indexname = \(indexName)", logger: database.logger
            ).decode(Int.self) { found = n }
            #expect(found == 1)
            let config = try await PostgresGlobalConfigStore(database, schema: schema).globalConfig()
            #expect(config.params["greeting"] == .string("hi"))
            let work = try await PostgresWorkQueue(database, schema: schema)
            let claimed = try await work.claim([.afterHook, .pushDelivery, .job, .email], limit: 10, owner: "node", at: Date(), leasedUntil: Date() + 60)
            // The queued after hook, and no fan-out of the push SQLite had sent already.
            #expect(claimed.map(\.id) == [fixture.afterHookId])
            let record = try #require(try await AppRegistry(database: database).app("Shop"))
            #expect(record.acceptedKeys.acceptsMasterKey(fixture.masterKey))
            #expect(!record.acceptedKeys.acceptsMasterKey("another-key"))
            let file = try #require(try await LocalFileStorage(folder: fixture.copiedFiles).file(Fixture.fileName))
            #expect(file.contentType == "text/plain" && file.metadata == ["owner": .string("u1")] && file.size == 10)
        }
    }

    @Test func aSecondCopyIsRefusedUnlessReplacingAndChangesNothing() async throws {
        try await Self.withCopiedApp { fixture in
            try await fixture.stores.objects.insert(Self.object("Note", "late", ["rank": .number(99)]), outbox: nil)
            let copy = AppCopyToPostgres(dataDirectory: fixture.folder, database: fixture.database)
            let refusal = await #expect(throws: AppCopyRefusal.self) { try await copy.run(apps: ["Shop"]) }
            #expect(refusal?.description.contains("--replace") == true)
            let objects = try await PostgresObjectStore(fixture.database, schema: fixture.schema)
            #expect(try await objects.fetch("Note", id: "late") == nil)
            #expect(try await AppRegistry(database: fixture.database).list().count == 1)
            let reports = try await copy.run(apps: ["Shop"], replace: true)
            #expect(reports.first?.rows.first { $0.table == "objects" }?.count == 9)
            #expect(try await objects.fetch("Note", id: "late") != nil)
            #expect(try await AppRegistry(database: fixture.database).app("Shop")?.acceptedKeys.acceptsMasterKey(fixture.masterKey) == true)
        }
    }

    @Test func tablesPastOnePageAreCopiedPageByPage() async throws {
        try await Self.withCopiedApp { fixture in
            let extra = CopiedTable.pageRows * 2 + 345
            try await fixture.sqlite.pool.write { db in
                let insert = try db.makeStatement(
                    sql: "INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES ('Bulk', ?, ?, ?, NULL, ?)")
                let relate = try db.makeStatement(
                    sql: "INSERT INTO relations (owning_class, owning_id, field, related_class, related_id) VALUES ('Note', 'n2', 'likes', 'Bulk', ?)")
                for index in 0..<extra {
                    let created = ParseDate.string(from: Self.now + Double(index % 97))
                    try insert.execute(arguments: [String(format: "b%05d", index), created, created, #"{"n":\#(index)}"#])
                    try relate.execute(arguments: [String(format: "b%05d", index)])
                }
            }
            let reports = try await AppCopyToPostgres(dataDirectory: fixture.folder, database: fixture.database).run(replace: true)
            let rows = Dictionary(uniqueKeysWithValues: try #require(reports.first).rows.map { ($0.table, $0.count) })
            #expect(rows["objects"] == extra + 8 && rows["relations"] == extra + 2)
            let objects = try await PostgresObjectStore(fixture.database, schema: fixture.schema)
            for order in [["createdAt"], ["-n"]] {
                let query = StorageQuery(query: ParseQuery("Bulk", constraints: [:], order: order, limit: 1000, skip: 1000), readerIdentities: nil)
                #expect(try await objects.find(query) == (try await fixture.stores.objects.find(query)))
            }
            let counted = StorageQuery(query: ParseQuery("Bulk", constraints: [:]), readerIdentities: nil)
            #expect(try await objects.count(counted) == extra)
        }
    }

    @Test func aServedDataFolderIsNotCopied() async throws {
        try await Self.withCopiedApp { fixture in
            let lock = try DataFolderLock(dataDirectory: fixture.folder)
            let refusal = await #expect(throws: AppCopyRefusal.self) {
                try await AppCopyToPostgres(dataDirectory: fixture.folder, database: fixture.database).run(replace: true)
            }
            #expect(refusal?.description.contains("stop its server") == true)
            withExtendedLifetime(lock) {}
        }
    }
}
