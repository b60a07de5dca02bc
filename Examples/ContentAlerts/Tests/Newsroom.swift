import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Testing

/// The accounts every ContentAlerts test starts with, created as the iOS editor app's back office
/// would: with the master key.
enum Newsroom {
    /// An editor (may publish) and a reader (may not), with the password `secret-<username>`.
    static let accounts: [(username: String, role: String)] = [("ada", "editor"), ("bob", "reader")]

    /// Creates ``accounts`` in `client`'s app.
    static func seed(_ client: ParseTestClient) async throws {
        for account in accounts {
            let created = try await client.post(
                "/classes/Users",
                ["username": .string(account.username), "password": .string("secret-\(account.username)"), "role": .string(account.role)],
                master: true)
            #expect(created.status == 201, "seeding \(account.username) failed: \(created.body)")
        }
    }

    /// A token from `authenticate` for `username`, with its own password and `role`.
    static func token(_ client: ParseTestClient, _ username: String, role: String) async throws -> String {
        let reply = try await client.post(
            "/functions/authenticate", ["username": .string(username), "password": .string("secret-\(username)"), "role": .string(role)])
        #expect(reply.status == 200, "authenticate failed: \(reply.body)")
        return try #require(reply["result"]?["token"]?.stringValue)
    }
}
