import Cloudlet
import CloudletRuntime
import Testing

/// An app's config on each store: kept across reopening, updated whole or not at all, updates at
/// once each keeping the others' parameters, and any string kept as it was written.
@Suite struct GlobalConfigStoreTests {
    /// Adds a parameter `name` to `config`.
    private static func adding(_ name: String, _ value: ParseValue) -> @Sendable (GlobalConfig) -> GlobalConfig {
        { config in
            var changed = config
            changed.params[name] = value
            return changed
        }
    }

    @Test(arguments: TestStore.allCases) func aConfigNeverWrittenIsEmptyAndAnUpdateIsKeptAcrossReopening(_ store: TestStore) async throws {
        try await store.with(TestApp.globalConfig) { config, reopen in
            #expect(try await config.globalConfig() == GlobalConfig())
            let update = try GlobalConfigUpdate(body: ["params": ["a": 1, "b": "two"], "masterKeyOnly": ["b": true]])
            try await config.updateGlobalConfig { try update.applied(to: $0) }
            #expect(try await reopen().globalConfig() == GlobalConfig(params: ["a": 1, "b": "two"], masterKeyOnly: ["a": false, "b": true]))
        }
    }

    @Test(arguments: TestStore.allCases) func updatesAtOnceEachKeepTheOthersParams(_ store: TestStore) async throws {
        try await store.with(TestApp.globalConfig) { config, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    group.addTask { try await config.updateGlobalConfig(Self.adding("p\(index)", .number(Double(index)))) }
                }
                try await group.waitForAll()
            }
            let params = try await config.globalConfig().params
            #expect(params.count == 24)
            #expect(params["p23"] == 23)
        }
    }

    @Test(arguments: TestStore.allCases) func aRefusedOrFailedUpdateWritesNothing(_ store: TestStore) async throws {
        try await store.with(TestApp.globalConfig) { config, _ in
            struct Refused: Error {}
            await #expect(throws: Refused.self) { try await config.updateGlobalConfig { _ in throw Refused() } }
            #expect(try await config.globalConfig() == GlobalConfig(), "a first update that failed leaves no config")

            // A parameter that makes the stored config exactly as large as it may be, then one byte more.
            let overhead = try GlobalConfig(params: ["big": ""]).storedText().utf8.count
            let largest = String(repeating: "x", count: GlobalConfig.maximumBytes - overhead)
            try await config.updateGlobalConfig(Self.adding("big", .string(largest)))
            await #expect(throws: ParseError.self) { try await config.updateGlobalConfig(Self.adding("big", .string(largest + "x"))) }
            await #expect(throws: ParseError.self) { try await config.updateGlobalConfig(Self.adding("more", 1)) }
            #expect(try await config.globalConfig() == GlobalConfig(params: ["big": .string(largest)]))
        }
    }

    @Test(arguments: TestStore.allCases) func hostileStringsAreKeptAsTheyWereWritten(_ store: TestStore) async throws {
        try await store.with(TestApp.globalConfig) { config, reopen in
            let hostile = GlobalConfig(
                params: [
                    "nul\u{0}name": "a\u{0}b", "quote": "'; DROP TABLE global_config; --", "dollar": "$1 $$ \\ \"",
                    "control": "\u{1}\u{7}\u{1F}\t\n", "wide": "é 漢字 🚀", "deep": ["k\u{0}": ["\u{0}", 1.5, -0.0, 1e300]],
                ],
                masterKeyOnly: ["nul\u{0}name": true])
            try await config.updateGlobalConfig { _ in hostile }
            #expect(try await reopen().globalConfig() == hostile)
        }
    }
}
