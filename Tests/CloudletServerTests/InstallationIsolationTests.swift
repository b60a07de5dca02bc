import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

/// Two apps on one server: app A's keys never see, change or push to app B's installations, and
/// never see B's push jobs. In one app, a client changes only its own device's installation.
@Suite("Installation and push isolation")
struct InstallationIsolationTests {
    static let victimToken = String(repeating: "ab", count: 32)

    /// Runs `body` with a client and the victim's installation (`victim-device`, bound to user
    /// `victim`, with ``victimToken``), registered as the iOS SDK does.
    static func withVictim(_ store: TestStore, _ body: @Sendable (ParseTestClient, _ objectId: String) async throws -> Void) async throws {
        try await InstallationTests.withClient(store) { client in
            let signup = try await client.post("/users", ["username": "victim", "password": "pw"])
            let session = try #require(signup["sessionToken"]?.stringValue)
            let created = try await client.request(
                .post, "/classes/_Installation",
                body: ["installationId": "victim-device", "deviceType": "ios", "deviceToken": .string(victimToken), "channels": ["private"]],
                headers: InstallationTests.device("victim-device", sessionToken: session))
            #expect(created.status == 201, "\(created.body)")
            try await body(client, try #require(created["objectId"]?.stringValue))
        }
    }

    /// The victim's installation as stored, read with the master key.
    static func victim(_ client: ParseTestClient, _ id: String) async throws -> ParseTestClient.Reply {
        try await client.get("/installations/\(id)", master: true)
    }

    @Test(arguments: TestStore.allCases) func aClientCannotFindAnotherDevicesInstallationByItsToken(store: TestStore) async throws {
        try await Self.withVictim(store) { client, id in
            let attempt = try await client.post("/installations", ["deviceToken": .string(Self.victimToken), "deviceType": "ios", "badge": 99])
            Support.expectError(attempt, status: 400, code: 135)
            #expect(try await Self.victim(client, id)["badge"] == nil)
            #expect(try await Support.masterCount(client, "_Installation") == 1, "nothing was written")
        }
    }

    @Test(arguments: TestStore.allCases) func aClientCannotChangeAnotherDevicesInstallationByItsObjectId(store: TestStore) async throws {
        try await Self.withVictim(store) { client, id in
            let redirect: ParseValue = ["deviceToken": "attackers-token"]
            Support.expectError(try await client.request(.put, "/installations/\(id)", body: redirect), status: 403, code: 119)
            Support.expectError(
                try await client.request(.put, "/classes/_Installation/\(id)", body: redirect, headers: InstallationTests.device("attacker")),
                status: 403, code: 119)
            #expect(try await Self.victim(client, id)["deviceToken"] == .string(Self.victimToken))
            // The device itself, sending its own id, still may.
            let own = try await client.request(.put, "/installations/\(id)", body: ["badge": 1], headers: InstallationTests.device("VICTIM-DEVICE"))
            #expect(own.status == 200, "\(own.body)")
        }
    }

    @Test(arguments: TestStore.allCases) func aSessionCannotRebindAnotherDevicesInstallationByNamingItsId(store: TestStore) async throws {
        try await Self.withVictim(store) { client, id in
            let victimUser = try await Self.victim(client, id)["user"]
            let signup = try await client.post("/users", ["username": "mallory", "password": "pw"])
            let session = try #require(signup["sessionToken"]?.stringValue)
            let upsert = try await client.post("/installations", ["installationId": "victim-device", "deviceType": "ios"], sessionToken: session)
            Support.expectError(upsert, status: 403, code: 119)
            let mismatched = try await client.request(
                .post, "/installations", body: ["installationId": "victim-device", "deviceType": "ios"],
                headers: InstallationTests.device("mallory-device", sessionToken: session))
            Support.expectError(mismatched, status: 403, code: 119)
            #expect(try await Self.victim(client, id)["user"] == victimUser)
            #expect(victimUser != nil)
        }
    }

    @Test(arguments: TestStore.allCases) func identityFieldsHaveLengthBounds(store: TestStore) async throws {
        try await InstallationTests.withClient(store) { client in
            let long = String(repeating: "a", count: 900_000)
            for (field, value) in [("installationId", long), ("deviceToken", long), ("deviceType", String(repeating: "x", count: 33))] {
                var body: [String: ParseValue] = ["installationId": "fine", "deviceType": "ios"]
                body[field] = .string(value)
                Support.expectError(try await client.post("/installations", body, master: true), status: 400, code: 142)
            }
            #expect(try await Support.masterCount(client, "_Installation") == 0)
            let longest = String(repeating: "f", count: 4096)
            #expect(try await client.post("/installations", ["installationId": "fine", "deviceType": "android", "deviceToken": .string(longest)]).status == 201)
        }
    }

    @Test(arguments: TestStore.allCases) func oneAppsKeysNeverReachAnothersInstallationsOrPushJobs(store: TestStore) async throws {
        try await RateLimitRouteTests.withApps(.off, store: store) { a, b in
            let installation = try await b.post("/installations", ["installationId": "b-device", "deviceType": "ios", "deviceToken": "tok-b"])
            let id = try #require(installation["objectId"]?.stringValue)
            let push = try await b.post("/push", ["where": [:], "data": ["alert": "for b"]], master: true)
            let jobId = try #require(push.headers[PushRouteTests.statusIdHeader])

            // A's keys presented as app B are refused before anything runs.
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/installations", nil), (.get, "/installations/\(id)", nil), (.put, "/installations/\(id)", #"{"badge":9}"#),
                (.delete, "/installations/\(id)", nil), (.post, "/push", #"{"where":{},"data":{"alert":"x"}}"#),
                (.get, "/classes/_Installation", nil), (.get, "/classes/_PushStatus/\(jobId)", nil),
            ]
            for (method, path, body) in routes {
                for (key, master) in [("client-a", false), ("master-a", true)] {
                    let reply = try await a.raw(
                        method, path, headers: TenantIsolationTests.headers(app: "b", key: key, master: master),
                        body: body.map { ByteBuffer(string: $0) })
                    Support.expectError(reply, status: 403, code: 119)
                }
            }
            // In app A, with A's master key, B's installation and job do not exist.
            #expect(Support.ids(try await a.get("/installations", master: true)).isEmpty)
            Support.expectError(try await a.get("/installations/\(id)", master: true), status: 404, code: 101)
            Support.expectError(try await a.put("/installations/\(id)", ["badge": 9], master: true), status: 404, code: 101)
            Support.expectError(try await a.get("/classes/_PushStatus/\(jobId)", master: true), status: 404, code: 101)
            // The same installation id in A is a new installation of A's own; B's keeps its token.
            let planted = try await a.post("/installations", ["installationId": "b-device", "deviceType": "ios", "deviceToken": "tok-b"])
            #expect(planted.status == 201)
            #expect(try await b.get("/installations/\(id)", master: true)["deviceToken"] == "tok-b")
            #expect(try await b.get("/installations/\(id)")["badge"] == nil)
            #expect(try await Support.masterCount(b, "_Installation") == 1)
            #expect(try await Support.masterCount(b, "_PushStatus") == 1)
        }
    }
}
