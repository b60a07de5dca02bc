import Cloudlet
import CloudletServer
import Foundation
import GRDB
import Testing

/// An app's settings are one `Codable` document, read through one table of fields, and the
/// registry keeps them as that document, moving a registry of one column per setting into it.
@Suite struct AppSettingsDocumentTests {
    @Test func aRegistryWithOneColumnPerSettingMovesThemIntoTheDocument() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        SQLiteProcessSettings.apply()
        let path = folder.appendingPathComponent("host.sqlite").path
        // The registry as the releases with a column per setting left it.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('apps'), ('registry'), ('push'), ('files'), ('jobSchedules');
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY, hooks_executable TEXT NOT NULL, isolation TEXT NOT NULL, workers INTEGER NOT NULL,
                        worker_memory_mb INTEGER NOT NULL, max_hook_time_limit_ms INTEGER NOT NULL, rate_limits TEXT NOT NULL,
                        push TEXT, files TEXT, job_schedules TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
                    );
                    CREATE TABLE app_keys (
                        app TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('client', 'master')),
                        value TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('active', 'retiring')),
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX app_keys_by_app ON app_keys (app);
                    CREATE TABLE host_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                    INSERT INTO apps VALUES ('shop', 'self', 'in-process', 3, 128, 5000, '{"rate": "5/s,burst=10"}', NULL,
                        '{"maxUploadBytes": 1024, "requireSession": true}', '{"cleanup": "0 3 * * *"}', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
                    INSERT INTO apps VALUES ('blog', 'self', 'process', 1, 0, 60000, '{"rate": "off"}', NULL, NULL, NULL,
                        '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
                    INSERT INTO app_keys VALUES ('shop', 'client', 'shop-client', 'active', '2026-01-01T00:00:00Z');
                    """)
        }
        let registry = try AppRegistry(dataDirectory: folder.path)
        let shop = try #require(try await registry.app("shop"))
        var expected = AppSettings()
        expected.isolation = .inProcess
        expected.workerCount = 3
        expected.workerMemoryMegabytes = 128
        expected.maximumHookTimeLimit = .milliseconds(5000)
        expected.rateLimits.quota = try RateLimitPolicy.quota(text: "5/s,burst=10")
        expected.files = FileSettings(maximumUploadBytes: 1024, requireSession: true)
        expected.jobSchedules = ["cleanup": try CronSchedule("0 3 * * *")]
        #expect(shop.settings == expected)
        #expect(shop.updatedAt == "2026-01-02T00:00:00Z")
        #expect(shop.acceptedKeys.acceptsClientKey("shop-client"))
        let blog = try #require(try await registry.app("blog"))
        #expect(blog.settings.workerMemoryMegabytes == 0)
        #expect(blog.settings.rateLimits.quota == nil)
        #expect(blog.settings.push == PushSettings() && blog.settings.files == FileSettings() && blog.settings.jobSchedules.isEmpty)

        let columns = try await DatabaseQueue(path: path).read { db in try db.columns(in: "apps").map(\.name) }
        #expect(columns.sorted() == ["created_at", "id", "settings", "updated_at"])
        // The document is what is changed now.
        try await registry.update("shop") { $0.workerCount = 4 }
        #expect(try await AppRegistry(dataDirectory: folder.path).app("shop")?.settings.workerCount == 4)
    }

    @Test func theSettingsAreCodableAndAMemberLeftOutKeepsItsDefault() throws {
        var settings = AppSettings()
        settings.workerMemoryMegabytes = 64
        settings.files.maximumTotalBytes = 1 << 30
        let encoded = try JSONEncoder().encode(settings)
        #expect(try JSONDecoder().decode(AppSettings.self, from: encoded) == settings)
        let partial = try JSONDecoder().decode(AppSettings.self, from: Data(#"{"workers": 2}"#.utf8))
        var expected = AppSettings()
        expected.workerCount = 2
        #expect(partial == expected)
        let error = try #require(throws: ParseError.self) { try JSONDecoder().decode(AppSettings.self, from: Data(#"{"workers": 0}"#.utf8)) }
        #expect(error.message == "workers must be an integer from 1 to 64")
    }

    @Test func eachFieldWritesItsDefaultAndReadsItBack() throws {
        let defaults = AppSettings()
        #expect(Set(AppSettings.fields.map(\.member)).count == AppSettings.fields.count)
        #expect(try defaults.applying(defaults.json) == defaults)
        let memory = try #require(AppSettings.fields.first { $0.member == "workerMemoryMb" })
        #expect(memory.flag == "worker-memory-mb")
        #expect(memory.defaultText == String(WorkerPoolConfiguration.defaultMemoryLimitMegabytes))
        let shortcuts = Dictionary(uniqueKeysWithValues: AppSettings.shortcuts.map { ($0.flag, $0.defaultText) })
        #expect(
            shortcuts == [
                "rate-limit": "40/s,burst=80", "max-upload-bytes": "20971520", "files-need-session": "false", "max-total-file-bytes": "none",
                "live-query-classes": "",
            ])
    }

    @Test func theAudienceListsReadAnArrayOrCommaSeparatedNamesAndRefuseOthers() throws {
        let fromArray = try AppSettings().applying(["appleBundleIds": ["com.example.a", "com.example.b"], "anonymousUsers": false])
        #expect(fromArray.authProviders.appleBundleIds == ["com.example.a", "com.example.b"] && !fromArray.authProviders.anonymousUsers)
        let fromText = try AppSettings().applying(["googleClientIds": "1.apps.googleusercontent.com,2.apps.googleusercontent.com"])
        #expect(fromText.authProviders.googleClientIds == ["1.apps.googleusercontent.com", "2.apps.googleusercontent.com"])
        #expect(try fromText.applying(["googleClientIds": ""]).authProviders.googleClientIds.isEmpty)
        #expect(fromArray.json["appleBundleIds"] == ["com.example.a", "com.example.b"])
        let tooMany = ParseValue.array((0...AppSettingField.maximumNames).map { .string("id\($0)") })
        for bad: ParseValue in ["a b", ["a", 1], ["a,b"], [""], .string(String(repeating: "x", count: 256)), tooMany, 7] {
            let error = try #require(throws: ParseError.self) { try AppSettings().applying(["appleBundleIds": bad]) }
            #expect(error.code == 142)
        }
        #expect(throws: ParseError.self) { try AppSettings().applying(["anonymousUsers": "yes"]) }
    }
}
