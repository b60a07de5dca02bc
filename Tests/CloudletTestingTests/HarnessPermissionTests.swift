import Cloudlet
import CloudletTesting
import Testing

/// The harness honours class-level permissions as the server does: its own calls as a client, and
/// a hook's store calls made as the caller.
@Suite("Harness class-level permissions")
struct HarnessPermissionTests {
    enum Hooks: HookModule {
        static func register(_ hooks: inout HookRegistry) {
            hooks.function("countNotes") { request in
                .number(Double(try await request.store.count(ParseQuery("Notes"))))
            }
            hooks.function("countNotesAsMaster") { request in
                .number(Double(try await request.store.asMaster.count(ParseQuery("Notes"))))
            }
        }
    }

    @Test("a client call and a hook's store call as the client meet the CLPs; the master key and asMaster pass")
    func clientsMeetTheCLPs() async throws {
        let harness = try HookHarness(Hooks.self)
        try await harness.create("Notes", ["text": "hi"])
        try await harness.setSchema("Notes", ["classLevelPermissions": ["find": ["requiresAuthentication": true], "count": ["requiresAuthentication": true], "get": [:]]])

        await #expect(throws: ParseError.self) { try await harness.find(ParseQuery("Notes"), as: .anonymous) }
        #expect(try await harness.find(ParseQuery("Notes"), as: .user("u1")).count == 1)
        await #expect(throws: ParseError.self) { try await harness.create("Notes", ["text": "x"], as: .user("u1")) }
        #expect(try await harness.create("Notes", ["text": "x"]).objectId != nil)

        await #expect(throws: ParseError.self) { try await harness.call("countNotes", as: .anonymous) }
        #expect(try await harness.call("countNotes", as: .user("u1")) == 2)
        #expect(try await harness.call("countNotesAsMaster", as: .anonymous) == 2)
    }

    @Test("a hook in a worker calls the store over the wire as the client: the CLPs hold there too")
    func inMemoryWorkers() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Hooks.registry()) { harness in
            try await harness.create("Notes", ["text": "hi"])
            try await harness.setSchema("Notes", ["classLevelPermissions": ["count": ["requiresAuthentication": true]]])
            let refused = await #expect(throws: ParseError.self) { try await harness.call("countNotes", as: .anonymous) }
            #expect(refused?.code == 101, "\(String(describing: refused))")
            #expect(try await harness.call("countNotes", as: .user("u1")) == 1)
            #expect(try await harness.call("countNotesAsMaster", as: .anonymous) == 1)
        }
    }
}
