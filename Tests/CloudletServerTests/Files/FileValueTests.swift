import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Testing

/// A `File` value in an object must name a file the app stores (111 otherwise), on every write path.
@Suite("File values")
struct FileValueTests {
    static func file(_ name: String) -> ParseValue { ["__type": "File", "name": .string(name)] }

    @Test(arguments: TestStore.allCases) func anObjectMayHoldOnlyFilesTheAppStores(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let missing = "0123456789abcdef0123456789abcdef_none.png"
            Support.expectError(try await server.a.post("/classes/Profiles", ["picture": Self.file(missing)]), status: 400, code: 111)
            Support.expectError(try await server.a.post("/classes/Profiles", ["gallery": [Self.file(missing)]]), status: 400, code: 111)
            Support.expectError(try await server.a.post("/classes/Profiles", ["nested": ["deep": Self.file(missing)]]), status: 400, code: 111)
            #expect(try await Support.masterCount(server.a, "Profiles") == 0)

            let (name, url) = try await server.upload("me.png", [1, 2, 3], contentType: "image/png")
            let id = try await Support.create(server.a, "Profiles", ["picture": ["__type": "File", "name": .string(name), "url": .string(url)]])
            let stored = try await server.a.get("/classes/Profiles/\(id)")
            #expect(stored["picture"]?["url"] == .string(url))

            Support.expectError(
                try await server.a.put("/classes/Profiles/\(id)", ["gallery": ["__op": "Add", "objects": [Self.file(missing)]]]),
                status: 400, code: 111)
            #expect(try await server.a.put("/classes/Profiles/\(id)", ["gallery": ["__op": "Add", "objects": [Self.file(name)]]]).status == 200)
            Support.expectError(try await server.a.put("/classes/Profiles/\(id)", ["picture": Self.file(missing)]), status: 400, code: 111)
            #expect(try await server.a.get("/classes/Profiles/\(id)")["picture"]?["name"] == .string(name))

            // Another app's file is not this app's.
            Support.expectError(try await server.b.post("/classes/Profiles", ["picture": Self.file(name)]), status: 400, code: 111)
        }
    }

    @Test func aBeforeHookCannotSlipInAMissingFile() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Profiles") { request in
            request.object["picture"] = ["__type": "File", "name": "0123456789abcdef0123456789abcdef_ghost.png"]
        }
        let harness = try HookHarness(registry: hooks)
        let error = try await #require(throws: ParseError.self) { try await harness.create("Profiles", ["name": "ada"]) }
        #expect(error.code == 111)
    }
}
