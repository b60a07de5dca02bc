import Cloudlet
import CloudletServer
import Foundation
import GRDB
import Testing

@Suite("App registry: apps and keys in host.sqlite")
struct AppRegistryTests {
    /// Runs `body` with a registry in a new folder, which is removed afterwards.
    static func withRegistry(_ body: (AppRegistry, URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(try AppRegistry(dataDirectory: folder.path), folder)
    }

    @Test("create, list, show, update and delete; settings survive a reopen")
    func crud() throws {
        try Self.withRegistry { registry, folder in
            let created = try registry.create("shop", settings: AppSettings().applying(["workers": 2, "maxHookTimeLimitMs": 20_000]))
            _ = try registry.create("blog")
            #expect(try registry.list().map(\.id) == ["blog", "shop"])
            #expect(created.record.acceptedKeys.acceptsClientKey(created.clientKey))
            #expect(created.record.acceptedKeys.acceptsMasterKey(created.masterKey))
            #expect(!created.record.acceptedKeys.acceptsMasterKey(created.clientKey))

            try registry.update("shop") {
                $0.rateLimits.quota = try RateLimitPolicy.quota(text: "5/s,burst=10")
                $0.workerMemoryMegabytes = 128
            }
            let reopened = try AppRegistry(dataDirectory: folder.path)
            let shop = try #require(try reopened.app("shop"))
            #expect(shop.settings.workerCount == 2)
            #expect(shop.settings.workerMemoryMegabytes == 128)
            #expect(shop.settings.maximumHookTimeLimit == .seconds(20))
            #expect(RateLimitPolicy.text(of: shop.settings.rateLimits.quota) == "5/s,burst=10")

            try reopened.delete("shop")
            #expect(try reopened.app("shop") == nil)
            #expect(throws: ParseError.self) { try reopened.delete("shop") }
            #expect(throws: ParseError.self) { try reopened.create("blog") }
            #expect(throws: ParseError.self) { try reopened.create("not/valid") }
        }
    }

    @Test("a rotated key and the one it replaces are both valid until the old one is retired")
    func rotation() throws {
        try Self.withRegistry { registry, _ in
            let created = try registry.create("shop")
            for kind in AppKeyKind.allCases {
                let old = kind == .client ? created.clientKey : created.masterKey
                let new = try registry.rotateKey(of: "shop", kind)
                func accepts(_ key: String) throws -> Bool {
                    let keys = try #require(try registry.app("shop")).acceptedKeys
                    return kind == .client ? keys.acceptsClientKey(key) : keys.acceptsMasterKey(key)
                }
                #expect(try accepts(old) && accepts(new))
                #expect(try registry.retireKeys(of: "shop", kind) == 1)
                #expect(try !accepts(old))
                #expect(try accepts(new))
            }
        }
    }

    @Test("master keys are kept only as their hash; client keys as they are")
    func masterKeysHashed() throws {
        try Self.withRegistry { registry, folder in
            let created = try registry.create("shop", clientKey: "a-client-key-to-look-for", masterKey: "a-master-key-to-look-for")
            #expect(created.masterKey == "a-master-key-to-look-for")
            _ = try registry.rotateKey(of: "shop", .master)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("host.sqlite") }
            let bytes = try files.map { try Data(contentsOf: folder.appendingPathComponent($0)) }.reduce(Data(), +)
            #expect(bytes.range(of: Data("a-master-key-to-look-for".utf8)) == nil)
            #expect(bytes.range(of: Data("a-client-key-to-look-for".utf8)) != nil)
            #expect(try registry.app("shop")?.keys.filter { $0.kind == .master }.count == 2)
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
    func upgradesTheFirstSchema() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // As Cloudlet's own databases do: SQLite starts with the process's settings, whichever test opens a database first.
        SQLiteProcessSettings.apply()
        try DatabaseQueue(path: folder.appendingPathComponent("host.sqlite").path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('apps');
                    CREATE TABLE apps (id TEXT PRIMARY KEY, client_key TEXT NOT NULL, master_key TEXT NOT NULL, created_at TEXT NOT NULL);
                    INSERT INTO apps VALUES ('dev', 'old-client', 'old-master', '2026-01-01T00:00:00Z');
                    """)
        }
        let registry = try AppRegistry(dataDirectory: folder.path)
        let dev = try #require(try registry.app("dev"))
        #expect(dev.acceptedKeys.acceptsClientKey("old-client"))
        #expect(dev.acceptedKeys.acceptsMasterKey("old-master"))
        #expect(dev.settings == AppSettings())
        #expect(dev.createdAt == "2026-01-01T00:00:00Z")
        #expect(!dev.keys.contains { $0.value == "old-master" })
    }
}
