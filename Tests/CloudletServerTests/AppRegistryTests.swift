import Cloudlet
import CloudletPostgres
import Foundation
import GRDB
import Testing

@testable import CloudletServer

@Suite("App registry: apps and keys in host.sqlite or PostgreSQL")
struct AppRegistryTests {
    /// Runs `body` with a registry in a new folder, which is removed afterwards.
    static func withRegistry(_ body: (AppRegistry, URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(try AppRegistry(dataDirectory: folder.path), folder)
    }

    /// Runs `body` with a new registry on `store`, and a way to open it again as another process
    /// (SQLite: the same `host.sqlite`) or another node (PostgreSQL: the same database) does.
    static func withRegistry(
        on store: TestStore, _ body: (AppRegistry, _ reopen: () async throws -> AppRegistry) async throws -> Void
    ) async throws {
        switch store {
        case .sqlite:
            try await withRegistry { registry, folder in try await body(registry) { try AppRegistry(dataDirectory: folder.path) } }
        case .postgres:
            try await TemporaryPostgres.database { url in
                var opened: [PostgresDatabase] = []
                defer { for database in opened { database.close() } }
                func open() async throws -> AppRegistry {
                    let database = try PostgresDatabase(url: url, maximumConnections: 2)
                    opened.append(database)
                    return try await AppRegistry(database: database)
                }
                try await body(try await open(), open)
            }
        }
    }

    @Test("create, list, show, update and delete; settings seen by another process or node", arguments: TestStore.allCases)
    func crud(_ store: TestStore) async throws {
        try await Self.withRegistry(on: store) { registry, reopen in
            let created = try await registry.create("shop", settings: AppSettings().applying(["workers": 2, "maxHookTimeLimitMs": 20_000]))
            _ = try await registry.create("blog")
            #expect(try await registry.list().map(\.id) == ["blog", "shop"])
            #expect(created.record.acceptedKeys.acceptsClientKey(created.clientKey))
            #expect(created.record.acceptedKeys.acceptsMasterKey(created.masterKey))
            #expect(!created.record.acceptedKeys.acceptsMasterKey(created.clientKey))

            let before = try await registry.changeVersion()
            try await registry.update("shop") {
                $0.rateLimits.quota = try RateLimitPolicy.quota(text: "5/s,burst=10")
                $0.workerMemoryMegabytes = 128
            }
            let reopened = try await reopen()
            #expect(try await reopened.changeVersion() != before)
            let shop = try #require(try await reopened.app("shop"))
            #expect(shop.settings.workerCount == 2)
            #expect(shop.settings.workerMemoryMegabytes == 128)
            #expect(shop.settings.maximumHookTimeLimit == .seconds(20))
            #expect(RateLimitPolicy.text(of: shop.settings.rateLimits.quota) == "5/s,burst=10")

            try await reopened.delete("shop")
            #expect(try await registry.app("shop") == nil)
            await #expect(throws: ParseError.self) { try await reopened.delete("shop") }
            await #expect(throws: ParseError.self) { try await reopened.create("blog") }
            await #expect(throws: ParseError.self) { try await reopened.create("BLOG") }
            await #expect(throws: ParseError.self) { try await reopened.create("not/valid") }
        }
    }

    @Test("a rotated key and the one it replaces are both valid until the old one is retired", arguments: TestStore.allCases)
    func rotation(_ store: TestStore) async throws {
        try await Self.withRegistry(on: store) { registry, _ in
            let created = try await registry.create("shop")
            for kind in AppKeyKind.allCases {
                let old = kind == .client ? created.clientKey : created.masterKey
                let new = try await registry.rotateKey(of: "shop", kind)
                func accepts(_ key: String) async throws -> Bool {
                    let keys = try #require(try await registry.app("shop")).acceptedKeys
                    return kind == .client ? keys.acceptsClientKey(key) : keys.acceptsMasterKey(key)
                }
                #expect(try await accepts(old))
                #expect(try await accepts(new))
                #expect(try await registry.retireKeys(of: "shop", kind) == 1)
                #expect(try await registry.retireKeys(of: "shop", kind) == 0)
                #expect(try await !accepts(old))
                #expect(try await accepts(new))
            }
            await #expect(throws: ParseError.self) { try await registry.rotateKey(of: "nope", .client) }
        }
    }

    @Test("the operator key is kept as its hash, and seen by another process or node", arguments: TestStore.allCases)
    func operatorKey(_ store: TestStore) async throws {
        try await Self.withRegistry(on: store) { registry, reopen in
            #expect(try await registry.operatorKey() == nil)
            try await registry.setOperatorKey(OperatorKey("an-operator-key"))
            let kept = try #require(try await reopen().operatorKey())
            #expect(kept.matches("an-operator-key"))
            #expect(!kept.matches("another-key"))
        }
    }

    @Test("two nodes creating the same app at once: one has it, the other gets 137")
    func createsAtOnceAcrossNodes() async throws {
        try await Self.withRegistry(on: .postgres) { registry, reopen in
            let other = try await reopen()
            /// The code `registry` is refused with when it creates `id`, or 0 when it creates it.
            func refusal(_ registry: AppRegistry, _ id: String) async -> Int {
                do {
                    _ = try await registry.create(id)
                    return 0
                } catch {
                    return (error as? ParseError)?.code ?? -1
                }
            }
            async let first = refusal(registry, "shop")
            async let second = refusal(other, "Shop")
            #expect(await [first, second].sorted() == [0, 137])
            #expect(try await registry.list().count == 1)
        }
    }

    @Test("a change through one node wakes another's registry signal")
    func aChangeWakesAnotherNode() async throws {
        try await Self.withRegistry(on: .postgres) { registry, reopen in
            let other = try await reopen()
            let signal = try #require(await other.storage.changeSignal())
            let count = signal.count
            _ = try await registry.create("shop")
            let deadline = ContinuousClock.now + .seconds(10)
            while signal.count == count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(signal.count > count)
        }
    }

    @Test("master keys are kept only as their hash; client keys as they are")
    func masterKeysHashed() async throws {
        try await Self.withRegistry { registry, folder in
            let created = try await registry.create("shop", clientKey: "a-client-key-to-look-for", masterKey: "a-master-key-to-look-for")
            #expect(created.masterKey == "a-master-key-to-look-for")
            _ = try await registry.rotateKey(of: "shop", .master)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("host.sqlite") }
            let bytes = try files.map { try Data(contentsOf: folder.appendingPathComponent($0)) }.reduce(Data(), +)
            #expect(bytes.range(of: Data("a-master-key-to-look-for".utf8)) == nil)
            #expect(bytes.range(of: Data("a-client-key-to-look-for".utf8)) != nil)
            #expect(try await registry.app("shop")?.keys.filter { $0.kind == .master }.count == 2)
        }
    }

    @Test("a hook over its app's cap refuses the app, naming the hook, its limit and the cap")
    func manifestRefusesHookOverCap() throws {
        let hooks = [
            HookRegistry.Summary(kind: .function, name: "report", timeLimit: .seconds(30)),
            HookRegistry.Summary(kind: .beforeSave, name: "Posts", timeLimit: .seconds(3)),
        ]
        let manifest = AppManifest(appId: "shop", settings: try AppSettings().applying(["maxHookTimeLimitMs": 10_000]), hooks: hooks)
        #expect(manifest.text.contains("beforeSave   Posts"))
        #expect(manifest.text.contains("rate 40/s,burst=80"))
        let error = try #require(throws: ParseError.self) { try manifest.checkTimeLimits() }
        #expect(error.message.contains("function hook report has a time limit of 30.0 seconds, over the app's cap of 10.0 seconds"))
        try AppManifest(appId: "shop", settings: AppSettings().applying(["maxHookTimeLimitMs": 30_000]), hooks: hooks).checkTimeLimits()
    }

    @Test("a host database from before the registry keeps its apps and keys, the master key now hashed")
    func upgradesTheFirstSchema() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // As Cloudlet's own databases do: SQLite starts with the process's settings, whichever test opens a database first.
        SQLiteProcessSettings.apply()
        try await DatabaseQueue(path: folder.appendingPathComponent("host.sqlite").path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('apps');
                    CREATE TABLE apps (id TEXT PRIMARY KEY, client_key TEXT NOT NULL, master_key TEXT NOT NULL, created_at TEXT NOT NULL);
                    INSERT INTO apps VALUES ('dev', 'old-client', 'old-master', '2026-01-01T00:00:00Z');
                    """)
        }
        let registry = try AppRegistry(dataDirectory: folder.path)
        let dev = try #require(try await registry.app("dev"))
        #expect(dev.acceptedKeys.acceptsClientKey("old-client"))
        #expect(dev.acceptedKeys.acceptsMasterKey("old-master"))
        #expect(dev.settings == AppSettings())
        #expect(dev.createdAt == "2026-01-01T00:00:00Z")
        #expect(!dev.keys.contains { $0.value == "old-master" })
    }
}
