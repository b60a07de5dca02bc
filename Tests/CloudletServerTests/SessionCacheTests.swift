import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import GRDB
import Testing

@testable import CloudletRuntime

/// The per-app session cache, through a real server and its SQLite files: a token once used is
/// answered from memory, yet every change the server makes to sessions and roles counts from the
/// very next request (each test first uses the token, so it is cached when the change comes), no
/// session is served past its expiry, and made-up tokens never grow the cache nor push anyone out.
@Suite("Sessions: the per-app cache")
struct SessionCacheTests {
    /// A server of apps `a` and `b` on `clock`, without the per-address pacing (the flood is one address's).
    static func withServer(clock: any CloudletClock = SystemClock(), _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(
            apps: [LiveServer.app("a"), LiveServer.app("b")], clock: clock, adjust: { $0.connections = ConnectionLimits(requestsPerAddress: nil) },
            body)
    }

    /// Logs `username` in (signing up first when `signUp`) from `installation`, then uses the
    /// token once, which caches it; answers the user's id and the token.
    static func signedIn(
        _ client: ParseTestClient, _ username: String, from installation: String, signUp: Bool = false
    ) async throws -> (id: String, token: String) {
        let token = try await SessionsTests.logIn(client, username, from: installation, signUp: signUp)
        let me = try await client.get("/users/me", sessionToken: token)
        #expect(me.status == 200, "\(me.body)")
        return (try #require(me["objectId"]?.stringValue), token)
    }

    static func expectWorks(_ client: ParseTestClient, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let me = try await client.get("/users/me", sessionToken: token)
        #expect(me.status == 200, "\(me.body)", sourceLocation: sourceLocation)
    }

    static func expectRefused(_ client: ParseTestClient, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        Support.expectError(try await client.get("/users/me", sessionToken: token), status: 400, code: 209, sourceLocation: sourceLocation)
    }

    /// The object id of the session `token` presents.
    static func sessionId(_ client: ParseTestClient, _ token: String) async throws -> String {
        try #require(try await client.get("/sessions/me", sessionToken: token)["objectId"]?.stringValue)
    }

    @Test("a logout, a deleted session (by its user, by the master key) and a login from the same installation end a cached token at once")
    func sessionsEnded() async throws {
        try await Self.withServer { server in
            let client = server.client("a")
            let ada = try await Self.signedIn(client, "ada", from: "phone-1", signUp: true)
            #expect(try await client.post("/logout", [:], sessionToken: ada.token).status == 200)
            try await Self.expectRefused(client, ada.token)

            let phone = try await Self.signedIn(client, "ada", from: "phone-1")
            let tablet = try await Self.signedIn(client, "ada", from: "tablet-1")
            let phoneId = try await Self.sessionId(client, phone.token)
            #expect(try await client.delete("/sessions/\(phoneId)", sessionToken: tablet.token).status == 200)
            try await Self.expectRefused(client, phone.token)
            try await Self.expectWorks(client, tablet.token)

            let tabletId = try await Self.sessionId(client, tablet.token)
            #expect(try await client.delete("/classes/_Session/\(tabletId)", master: true).status == 200)
            try await Self.expectRefused(client, tablet.token)

            let first = try await Self.signedIn(client, "ada", from: "laptop-1")
            let second = try await Self.signedIn(client, "ada", from: "laptop-1")
            try await Self.expectRefused(client, first.token)
            try await Self.expectWorks(client, second.token)
        }
    }

    @Test("a password change ends the user's other cached sessions (the master key's: all), a deleted or purged user's end at once")
    func usersChanged() async throws {
        try await Self.withServer { server in
            let client = server.client("a")
            let phone = try await Self.signedIn(client, "bob", from: "phone-1", signUp: true)
            let tablet = try await Self.signedIn(client, "bob", from: "tablet-1")
            #expect(try await client.put("/users/\(phone.id)", ["password": "second"], sessionToken: phone.token).status == 200)
            try await Self.expectRefused(client, tablet.token)
            try await Self.expectWorks(client, phone.token)
            #expect(try await client.put("/users/\(phone.id)", ["password": "third"], master: true).status == 200)
            try await Self.expectRefused(client, phone.token)

            let carol = try await Self.signedIn(client, "carol", from: "phone-2", signUp: true)
            #expect(try await client.delete("/users/\(carol.id)", sessionToken: carol.token).status == 200)
            try await Self.expectRefused(client, carol.token)

            let dave = try await Self.signedIn(client, "dave", from: "phone-3", signUp: true)
            #expect(try await client.delete("/purge/_User", master: true).status == 200)
            try await Self.expectRefused(client, dave.token)
        }
    }

    @Test("a role write counts from the next request: a member added and removed, a role inherited, a role deleted")
    func rolesChanged() async throws {
        try await Self.withServer { server in
            let client = server.client("a")
            let erin = try await Self.signedIn(client, "erin", from: "phone-1", signUp: true)
            let report = try #require(
                try await client.post("/classes/Reports", ["ACL": ["role:Staff": ["read": true]]], master: true)["objectId"]?.stringValue)
            /// Whether erin reads the report, as a request with her cached token.
            func reads() async throws -> Bool {
                try await client.get("/classes/Reports/\(report)", sessionToken: erin.token).status == 200
            }
            let member: [ParseValue] = [.pointer(className: "_User", objectId: erin.id)]
            #expect(try await reads() == false)
            let staff = try #require(
                try await client.post(
                    "/roles", ["name": "Staff", "ACL": ["*": ["read": true]], "users": ["__op": "AddRelation", "objects": .array(member)]],
                    master: true)["objectId"]?.stringValue)
            #expect(try await reads())
            let removed = try await client.put("/roles/\(staff)", ["users": ["__op": "RemoveRelation", "objects": .array(member)]], master: true)
            #expect(removed.status == 200)
            #expect(try await reads() == false)

            let managers = try #require(
                try await client.post(
                    "/roles", ["name": "Managers", "ACL": ["*": ["read": true]], "users": ["__op": "AddRelation", "objects": .array(member)]],
                    master: true)["objectId"]?.stringValue)
            #expect(try await reads() == false)
            let inherits: [ParseValue] = [.pointer(className: "_Role", objectId: managers)]
            #expect(try await client.put("/roles/\(staff)", ["roles": ["__op": "AddRelation", "objects": .array(inherits)]], master: true).status == 200)
            #expect(try await reads())
            #expect(try await client.delete("/roles/\(managers)", master: true).status == 200)
            #expect(try await reads() == false)
        }
    }

    @Test("no session is answered past its expiry, however recently it was cached")
    func expiryHonoured() async throws {
        let clock = ManualClock()
        try await Self.withServer(clock: clock) { server in
            let client = server.client("a")
            let app = try #require(server.apps.app("a"))
            app.runtime.context.sessionLifetime = .seconds(30)
            let ada = try await Self.signedIn(client, "ada", from: "phone-1", signUp: true)
            clock.advance(by: .seconds(29))
            try await Self.expectWorks(client, ada.token)
            clock.advance(by: .seconds(2))
            let expired = try await client.get("/users/me", sessionToken: ada.token)
            Support.expectError(expired, status: 400, code: 209)
            #expect(expired["error"] == "Session token is expired.")
        }
    }

    @Test("a flood of made-up tokens stores nothing and pushes no cached session out; each app's cache is its own")
    func floodOfMadeUpTokens() async throws {
        try await Self.withServer { server in
            let a = server.client("a"), b = server.client("b")
            let ada = try await Self.signedIn(a, "ada", from: "phone-1", signUp: true)
            let bob = try await Self.signedIn(b, "bob", from: "phone-1", signUp: true)
            let cacheA = try #require(server.apps.app("a")).runtime.context.sessionCache
            let cacheB = try #require(server.apps.app("b")).runtime.context.sessionCache
            #expect(cacheA.size.entries == 1 && cacheB.size.entries == 1)
            // Behind the server's back, app a's session rows go: from now on only the cache answers for ada.
            let database = try DatabaseQueue(path: server.dataDirectory.appendingPathComponent("apps/a.sqlite").path)
            try await database.write { db in try db.execute(sql: "DELETE FROM sessions") }
            try await Self.expectWorks(a, ada.token)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<500 {
                            let madeUp = "r:" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
                            Support.expectError(try await a.get("/users/me", sessionToken: madeUp), status: 400, code: 209)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(cacheA.size.entries == 1, "a made-up token was stored")
            try await Self.expectWorks(a, ada.token)
            #expect(cacheB.size.entries == 1)
            try await Self.expectWorks(b, bob.token)
        }
    }
}
