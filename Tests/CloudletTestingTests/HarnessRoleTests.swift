import Cloudlet
import CloudletTesting
import Testing

@Suite("The hook harness: roles resolved as the server resolves them")
struct HarnessRoleTests {
    /// `boardTitles` answers the titles of the `Notes` the caller may read, through the hook's store;
    /// `myRoles` the caller's roles, to members of `Board` only.
    private static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("boardTitles") { request in
            .array(try await request.store.find(ParseQuery("Notes")).compactMap { $0["title"] })
        }
        hooks.function("myRoles") { request in
            guard request.user?.hasRole("Board") == true else { throw HookError.unauthorized("the board only") }
            return .array(request.user?.roles.map(ParseValue.string) ?? [])
        }
        return hooks
    }

    @Test func aUsersInheritedRolesOpenACLsInTheHarnessAndInItsHooks() async throws {
        try await Self.check(try HookHarness(registry: Self.hooks))
    }

    @Test func theRolesCrossTheWorkerWire() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.hooks) { harness in try await Self.check(harness) }
    }

    private static func check(_ harness: HookHarness) async throws {
        let ivy = try #require(try await harness.signUp(username: "ivy", password: "pw").objectId)
        let members = try await harness.create(
            "_Role", ["name": "Members", "ACL": ["*": ["read": true]], "users": .addRelation([.pointer(className: "_User", objectId: ivy)])])
        try await harness.create(
            "_Role",
            ["name": "Board", "ACL": ["*": ["read": true]], "roles": .addRelation([.pointer(className: "_Role", objectId: members.objectId!)])])
        let note = try #require(try await harness.create("Notes", ["title": "minutes", "ACL": ["role:Board": ["read": true]]]).objectId)

        #expect(try await harness.get("Notes", id: note, as: .user(ivy))?["title"] == "minutes")
        #expect(try await harness.get("Notes", id: note, as: .user("stranger")) == nil)
        #expect(try await harness.call("boardTitles", as: .user(ivy)) == ["minutes"])
        #expect(try await harness.call("boardTitles", as: .anonymous) == [])
        #expect(try await harness.call("myRoles", as: .user(ivy)) == ["Board", "Members"])
        await #expect(throws: ParseError.self) { try await harness.call("myRoles", as: .user("stranger")) }
    }
}
