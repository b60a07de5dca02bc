import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import HTTPTypes
import Testing

/// A password change, its new hash and the end of the user's other sessions commit together
/// with the user's update, or not at all.
@Suite("Password change")
struct PasswordChangeTests {
    /// While the user's after hook runs, the update has committed: by then the new password works
    /// and the other sessions are gone, all in the same transaction as the user's fields.
    @Test(arguments: TestStore.allCases) func theNewPasswordAndTheRevocationCommitWithTheUser(store: TestStore) async throws {
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        var hooks = HookRegistry()
        hooks.afterSave("_User") { request in
            guard request.object["title"] == "changed" else { return }
            enter.yield()
            for await _ in released { break }
        }
        try await UsersTests.withClient(store, hooks) { client in
            let user = try await UsersTests.signUp(client, "jo")
            let other = try await client.post("/login", ["username": "jo", "password": "pw-jo"])
            let otherToken = try #require(other["sessionToken"]?.stringValue)
            async let change = client.request(
                .put, "/users/\(user.id)", body: ["password": "new-pw", "title": "changed"], headers: UsersTests.session(user.token))
            for await _ in entered { break }
            let otherSession = try await client.request(.get, "/users/me", headers: UsersTests.session(otherToken))
            let newLogin = try await client.post("/login", ["username": "jo", "password": "new-pw"])
            release.yield()
            #expect(try await change.status == 200)
            Support.expectError(otherSession, status: 400, code: 209)
            #expect(newLogin.status == 200, "\(newLogin.body)")
        }
    }

    @Test(arguments: TestStore.allCases) func aRefusedUpdateChangesNeitherThePasswordNorTheSessions(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("_User") { request in
            if request.object["title"] == "forbidden" { throw ParseError.validation("no") }
        }
        try await UsersTests.withClient(store, hooks) { client in
            let user = try await UsersTests.signUp(client, "kit")
            let other = try await client.post("/login", ["username": "kit", "password": "pw-kit"])
            let otherToken = try #require(other["sessionToken"]?.stringValue)
            let refused = try await client.request(
                .put, "/users/\(user.id)", body: ["password": "new-pw", "title": "forbidden"], headers: UsersTests.session(user.token))
            Support.expectError(refused, status: 400, code: 142)
            #expect(try await client.request(.get, "/users/me", headers: UsersTests.session(otherToken)).status == 200)
            #expect(try await client.post("/login", ["username": "kit", "password": "pw-kit"]).status == 200)
            Support.expectError(try await client.post("/login", ["username": "kit", "password": "new-pw"]), status: 404, code: 101)
        }
    }
}
