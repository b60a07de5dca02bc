import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

/// Installations as Parse Server keeps them: `/installations` and `/classes/_Installation` with the
/// same upsert rules, ids lowercased, codes 135/136, tokens taken over, the session's user bound,
/// finds and deletes for the master key only.
@Suite("Installations")
struct InstallationTests {
    static let installationIdHeader = HTTPField.Name("X-Parse-Installation-Id")!
    static let token = "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789"

    /// Runs `body` with a client of a server without hooks, its data on `store`.
    static func withClient(_ store: TestStore, _ body: @Sendable (ParseTestClient) async throws -> Void) async throws {
        try await store.withRouter(registry: HookRegistry(), body)
    }

    /// The headers a device's SDK sends: its installation id, and its session when it has one.
    static func device(_ installationId: String, sessionToken: String? = nil) -> HTTPFields {
        var headers: HTTPFields = [installationIdHeader: installationId]
        if let sessionToken { headers[HTTPField.Name("X-Parse-Session-Token")!] = sessionToken }
        return headers
    }

    static func installations(_ client: ParseTestClient) async throws -> [ParseValue] {
        try await Support.masterResults(client, "_Installation", query: ["order": "createdAt"])
    }

    @Test(arguments: TestStore.allCases) func theIOSSDKSavesThroughClassesWithItsInstallationIdHeaderAndFetchesById(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let headers: HTTPFields = [Self.installationIdHeader: "6D1F7A4B-0000-4C2E-9E36-AA55AA55AA55"]
            let body: ParseValue = [
                "deviceType": "ios", "installationId": "6D1F7A4B-0000-4C2E-9E36-AA55AA55AA55", "deviceToken": .string(Self.token),
                "badge": 0, "timeZone": "Europe/Paris", "localeIdentifier": "fr-FR", "appIdentifier": "com.example.app",
                "appName": "Example", "appVersion": "1.0", "parseVersion": "1.19.4", "channels": ["news"],
            ]
            let created = try await client.request(.post, "/classes/_Installation", body: body, headers: headers)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(created["objectId"]?.stringValue)
            #expect(Support.isParseDate(created["createdAt"]?.stringValue))

            let fetched = try await client.request(.get, "/classes/_Installation/\(id)", headers: headers)
            #expect(fetched.status == 200)
            #expect(fetched["installationId"] == "6d1f7a4b-0000-4c2e-9e36-aa55aa55aa55", "installation ids are lowercased")
            #expect(fetched["deviceToken"] == .string(Self.token.lowercased()), "64-hex tokens are lowercased")
            #expect(fetched["timeZone"] == "Europe/Paris")
            #expect(fetched["channels"] == ["news"])

            let updated = try await client.request(.put, "/classes/_Installation/\(id)", body: ["badge": 3, "channels": ["news", "sport"]], headers: headers)
            #expect(updated.status == 200, "\(updated.body)")
            #expect(Support.isParseDate(updated["updatedAt"]?.stringValue))
            #expect(try await client.get("/installations/\(id)")["badge"] == 3)
        }
    }

    @Test(arguments: TestStore.allCases) func theJavaScriptSDKSavesThroughInstallationsInItsBodyForm(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let text = #"{"_ApplicationId":"test","_JavaScriptKey":"client-key","_InstallationId":"JS-ONE","deviceType":"web","channels":["a"]}"#
            let created = try await client.raw(.post, "/installations", headers: [.contentType: "text/plain"], body: ByteBuffer(string: text))
            #expect(created.status == 201, "\(created.body)")
            let stored = try await Self.installations(client)
            #expect(stored.count == 1)
            #expect(stored.first?["installationId"] == "js-one", "the body's _InstallationId names the installation")
            #expect(stored.first?["deviceType"] == "web")

            let again = try await client.raw(
                .post, "/installations", headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: #"{"_ApplicationId":"test","_JavaScriptKey":"client-key","_InstallationId":"js-one","channels":["a","b"]}"#))
            #expect(again.status == 200, "a known installation id updates: \(again.body)")
            #expect(again["objectId"] == stored.first?["objectId"])
            #expect(try await Self.installations(client).map { $0["channels"] } == [["a", "b"]])
        }
    }

    @Test(arguments: TestStore.allCases) func anIdFieldIsRequiredAndADeviceTypeOnCreate(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            Support.expectError(try await client.post("/installations", ["deviceType": "ios"]), status: 400, code: 135)
            Support.expectError(try await client.post("/installations", ["installationId": "abc"]), status: 400, code: 135)
            Support.expectError(try await client.post("/classes/_Installation", ["deviceToken": "tok"]), status: 400, code: 135)
            Support.expectError(try await client.post("/installations", ["installationId": 7, "deviceType": "ios"]), status: 400, code: 111)
            #expect(try await Self.installations(client).isEmpty, "nothing is written")
        }
    }

    @Test(arguments: TestStore.allCases) func installationIdAndDeviceTypeNeverChange(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let id = try await Support.create(client, "_Installation", ["installationId": "one", "deviceType": "ios"])
            func put(_ body: ParseValue) async throws -> ParseTestClient.Reply {
                try await client.request(.put, "/installations/\(id)", body: body, headers: Self.device("one"))
            }
            Support.expectError(try await put(["installationId": "two"]), status: 400, code: 136)
            Support.expectError(try await put(["deviceType": "android"]), status: 400, code: 136)
            Support.expectError(try await put(["installationId": ["__op": "Delete"]]), status: 400, code: 136)
            Support.expectError(
                try await client.request(
                    .post, "/installations", body: ["installationId": "one", "deviceType": "android"], headers: Self.device("one")),
                status: 400, code: 136)
            #expect(try await put(["installationId": "ONE", "deviceType": "ios"]).status == 200, "the same values, in any case, are no change")

            let tokenOnly = try await Support.create(client, "_Installation", ["deviceToken": "t-1", "deviceType": "android"], master: true)
            Support.expectError(try await client.put("/installations/\(tokenOnly)", ["deviceToken": "t-2"], master: true), status: 400, code: 136)
            let stored = try await Self.installations(client)
            #expect(stored.map { $0["installationId"] } == ["one", nil])
            #expect(stored.map { $0["deviceType"] } == ["ios", "android"])
            #expect(stored.last?["deviceToken"] == "t-1")
        }
    }

    @Test(arguments: TestStore.allCases) func aNewInstallationIdWithAKnownTokenTakesTheTokenOver(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let old = try await Support.create(
                client, "_Installation", ["installationId": "old", "deviceType": "ios", "deviceToken": .string(Self.token), "channels": ["x"]])
            let new = try await Support.create(
                client, "_Installation", ["installationId": "new", "deviceType": "ios", "deviceToken": .string(Self.token.lowercased())])
            #expect(old != new)
            let stored = try await Self.installations(client)
            #expect(stored.count == 2)
            #expect(stored.first { $0["objectId"] == .string(old) }?["deviceToken"] == nil, "the old row loses the token")
            #expect(stored.first { $0["objectId"] == .string(new) }?["deviceToken"] == .string(Self.token.lowercased()))

            // A token set by update is taken over the same way.
            let third = try await Support.create(client, "_Installation", ["installationId": "third", "deviceType": "ios"])
            let taken = try await client.request(
                .put, "/installations/\(third)", body: ["deviceToken": .string(Self.token)], headers: Self.device("third"))
            #expect(taken.status == 200)
            let holders = try await client.get("/installations", query: ["where": ["deviceToken": .string(Self.token.lowercased())]], master: true)
            #expect(Support.ids(holders) == [third], "only the last to register the token holds it")
        }
    }

    @Test(arguments: TestStore.allCases) func concurrentRegistrationsOfOneNewInstallationIdMakeOneInstallation(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for badge in 0..<8 {
                    group.addTask {
                        try await client.request(
                            .post, "/installations", body: ["installationId": "same", "deviceType": "ios", "badge": .number(Double(badge))],
                            headers: Self.device("same")
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 200, 200, 200, 200, 200, 200, 201])
            #expect(try await Self.installations(client).count == 1)
        }
    }

    @Test(arguments: TestStore.allCases) func withTheMasterKeyATokenWithoutAnInstallationIdUpdatesTheInstallationThatHasIt(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let id = try await Support.create(client, "_Installation", ["deviceToken": "fcm-token", "deviceType": "android"], master: true)
            let again = try await client.post("/installations", ["deviceToken": "fcm-token", "deviceType": "android", "badge": 2], master: true)
            #expect(again.status == 200, "\(again.body)")
            #expect(again["objectId"] == .string(id))
            let stored = try await Self.installations(client)
            #expect(stored.count == 1)
            #expect(stored.first?["badge"] == 2)
        }
    }

    @Test(arguments: TestStore.allCases) func installationsAreBoundToTheSessionsUser(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let signup = try await client.post("/users", ["username": "ada", "password": "pw"])
            let token = try #require(signup["sessionToken"]?.stringValue)
            let userId = try #require(signup["objectId"]?.stringValue)
            let created = try await client.post("/installations", ["installationId": "i-ada", "deviceType": "ios"], sessionToken: token)
            #expect(created.status == 201)
            let id = try #require(created["objectId"]?.stringValue)
            #expect(try await client.get("/installations/\(id)")["user"] == .pointer(className: "_User", objectId: userId))

            let other = try await client.post("/users", ["username": "bob", "password": "pw"])
            let bobId = try #require(other["objectId"]?.stringValue)
            let hijack = try await client.request(
                .put, "/installations/\(id)", body: ["user": .pointer(className: "_User", objectId: bobId)],
                headers: Self.device("i-ada", sessionToken: token))
            #expect(hijack.status == 200)
            #expect(try await client.get("/installations/\(id)")["user"] == .pointer(className: "_User", objectId: userId),
                    "a client with a session binds its own user")
            Support.expectError(
                try await client.post("/installations", ["installationId": "i-x", "deviceType": "ios", "user": .pointer(className: "_User", objectId: bobId)]),
                status: 403, code: 119)
            let unbound = try await client.request(.put, "/installations/\(id)", body: ["user": ["__op": "Delete"]], headers: Self.device("i-ada"))
            #expect(unbound.status == 200, "a client may unbind")
            #expect(try await client.get("/installations/\(id)")["user"] == nil)
        }
    }

    @Test(arguments: TestStore.allCases) func onlyTheMasterKeyFindsCountsOrDeletesInstallations(store: TestStore) async throws {
        try await Self.withClient(store) { client in
            let id = try await Support.create(client, "_Installation", ["installationId": "i-1", "deviceType": "ios"])
            Support.expectError(try await client.get("/installations"), status: 403, code: 119)
            Support.expectError(try await client.get("/classes/_Installation"), status: 403, code: 119)
            Support.expectError(try await client.get("/classes/_Installation", query: ["count": 1, "limit": 0]), status: 403, code: 119)
            Support.expectError(try await client.delete("/installations/\(id)"), status: 403, code: 119)
            #expect(try await client.get("/installations/\(id)").status == 200, "a get by id is a client's")
            #expect(Support.ids(try await client.get("/installations", master: true)) == [id])
            #expect(try await client.delete("/installations/\(id)", master: true).status == 200)
            #expect(try await Self.installations(client).isEmpty)
        }
    }
}
