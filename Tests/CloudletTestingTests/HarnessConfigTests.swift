import Cloudlet
import CloudletTesting
import Testing

/// Hooks read the app's config through their request, in the harness as on the server.
@Suite("Config in the hook harness")
struct HarnessConfigTests {
    /// A `beforeSave` that caps a post's length at the config's `maxLength`, and a function that
    /// answers the config as its caller and as the master key read it.
    static var registry: HookRegistry {
        var hooks = HookRegistry()
        hooks.beforeSave("Posts") { request in
            let limit = try await request.config()["maxLength"]?.intValue ?? 10
            if (request.object["text"]?.stringValue?.count ?? 0) > limit { throw HookError.validation("longer than \(limit)") }
        }
        hooks.function("config") { request in
            ["caller": .object(try await request.config()), "master": .object(try await request.store.asMaster.config())]
        }
        return hooks
    }

    @Test func hooksReadTheConfigAsTheirCallerMay() async throws {
        let harness = try HookHarness(registry: Self.registry)
        #expect(try await harness.call("config", as: .anonymous) == ["caller": [:], "master": [:]])
        try await harness.updateConfig(["maxLength": 3, "apiSecret": "s3cr3t"], masterKeyOnly: ["apiSecret": true])
        #expect(try await harness.call("config", as: .anonymous) == ["caller": ["maxLength": 3], "master": ["maxLength": 3, "apiSecret": "s3cr3t"]])
        let all: ParseValue = ["maxLength": 3, "apiSecret": "s3cr3t"]
        #expect(try await harness.call("config", as: .master) == ["caller": all, "master": all])
        #expect(try await harness.config(as: .user("u1")) == ["maxLength": 3])

        await #expect(throws: ParseError.self) { try await harness.create("Posts", ["text": "four"], as: .anonymous) }
        try await harness.updateConfig(["maxLength": ["__op": "Increment", "amount": 1]])
        #expect(try await harness.create("Posts", ["text": "four"], as: .anonymous)["text"] == "four")
    }

    @Test func hooksInWorkersReadTheConfigOverTheWire() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.registry) { harness in
            try await harness.updateConfig(["maxLength": 3, "apiSecret": "s3cr3t"], masterKeyOnly: ["apiSecret": true])
            #expect(try await harness.call("config", as: .anonymous) == ["caller": ["maxLength": 3], "master": ["maxLength": 3, "apiSecret": "s3cr3t"]])
            await #expect(throws: ParseError.self) { try await harness.create("Posts", ["text": "four"], as: .anonymous) }
        }
    }
}
