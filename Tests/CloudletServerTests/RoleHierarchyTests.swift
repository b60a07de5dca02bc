import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `"role:Name"` in ACLs: a user holds the roles whose `users` relation holds it and every role
/// those inherit through `roles` relations, resolved per request through a per-app cache that
/// every role write empties.
@Suite("Roles: hierarchy and ACLs")
struct RoleHierarchyTests {
    typealias Roles = RoleRoutesTests

    static func readableBy(_ role: String, writable: Bool = true) -> ParseValue {
        ["role:\(role)": ["read": true, "write": .bool(writable)]]
    }

    /// Whether the user with `token` gets the note `id`, finds it, and may change it.
    static func access(_ client: ParseTestClient, _ id: String, _ token: String) async throws -> (get: Bool, find: Bool, update: Bool) {
        let get = try await client.get("/classes/Notes/\(id)", sessionToken: token).status == 200
        let find = Support.ids(try await client.get("/classes/Notes", sessionToken: token)).contains(id)
        let update = try await client.put("/classes/Notes/\(id)", ["seen": true], sessionToken: token).status == 200
        return (get, find, update)
    }

    @Test("role:Name grants get, find, update and delete to the role's members and to the members of the roles that inherit it", arguments: TestStore.allCases)
    func inheritedRolesOpenACLs(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let (ann, bob, cat) = (try await UsersTests.signUp(client, "ann"), try await UsersTests.signUp(client, "bob"), try await UsersTests.signUp(client, "cat"))
            // Moderators' members are Admins' too: Admins' `roles` relation holds Moderators.
            let moderators = try await Roles.createRole(client, "Moderators", ["users": Roles.addUsers(bob.id)])
            try await Roles.createRole(client, "Admins", ["users": Roles.addUsers(ann.id), "roles": Roles.addRoles(moderators)])
            let adminNote = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Admins")], master: true)
            let moderatorNote = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Moderators")], master: true)

            #expect(try await Self.access(client, adminNote, ann.token) == (true, true, true))
            #expect(try await Self.access(client, adminNote, bob.token) == (true, true, true), "inherited through Moderators")
            #expect(try await Self.access(client, adminNote, cat.token) == (false, false, false))
            #expect(try await Self.access(client, moderatorNote, ann.token) == (false, false, false), "Admins' members are not Moderators")
            #expect(try await Self.access(client, moderatorNote, bob.token) == (true, true, true))
            Support.expectError(try await client.delete("/classes/Notes/\(adminNote)", sessionToken: cat.token), status: 404, code: 101)
            #expect(try await client.delete("/classes/Notes/\(adminNote)", sessionToken: bob.token).status == 200)
        }
    }

    @Test("a change of membership counts from the next request: the role cache is emptied by every role write", arguments: TestStore.allCases)
    func membershipChangesAtOnce(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let dan = try await UsersTests.signUp(client, "dan")
            let staff = try await Roles.createRole(client, "Staff")
            let editors = try await Roles.createRole(client, "Editors")
            let note = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Editors")], master: true)
            #expect(try await Self.access(client, note, dan.token).get == false)
            #expect(try await client.put("/roles/\(staff)", ["users": Roles.addUsers(dan.id)], master: true).status == 200)
            #expect(try await Self.access(client, note, dan.token).get == false, "Staff is not an editor yet")
            #expect(try await client.put("/roles/\(editors)", ["roles": Roles.addRoles(staff)], master: true).status == 200)
            #expect(try await Self.access(client, note, dan.token).get == true)
            #expect(try await client.put("/roles/\(editors)", ["roles": .removeRelation([Roles.pointer("_Role", staff)])], master: true).status == 200)
            #expect(try await Self.access(client, note, dan.token).get == false)
            #expect(try await client.put("/roles/\(editors)", ["users": Roles.addUsers(dan.id)], master: true).status == 200)
            #expect(try await Self.access(client, note, dan.token).get == true)
            #expect(try await client.delete("/roles/\(editors)", master: true).status == 200)
            #expect(try await Self.access(client, note, dan.token).get == false, "a deleted role grants nothing")
        }
    }

    @Test("a purge of _Role counts from the next request, as role writes do; its users field cannot be deleted (136)", arguments: TestStore.allCases)
    func schemaChangesOfRolesCountAtOnce(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let ida = try await UsersTests.signUp(client, "ida")
            let staff = try await Roles.createRole(client, "Staff")
            let note = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Staff")], master: true)
            #expect(try await client.put("/roles/\(staff)", ["users": Roles.addUsers(ida.id)], master: true).status == 200)
            #expect(try await Self.access(client, note, ida.token).get == true)
            let dropUsers = try await client.put("/schemas/_Role", ["className": "_Role", "fields": ["users": ["__op": "Delete"]]], master: true)
            Support.expectError(dropUsers, status: 400, code: 136)
            #expect(try await Self.access(client, note, ida.token).get == true, "a default field stays")

            let admins = try await Roles.createRole(client, "Admins")
            let secret = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Admins")], master: true)
            #expect(try await client.put("/roles/\(admins)", ["users": Roles.addUsers(ida.id)], master: true).status == 200)
            #expect(try await Self.access(client, secret, ida.token).get == true)
            #expect(try await client.delete("/purge/_Role", master: true).status == 200)
            #expect(try await Self.access(client, secret, ida.token).get == false, "a purged role grants nothing")
        }
    }

    @Test("a role change inside a transactional batch counts once the batch has committed; a rolled-back one never", arguments: TestStore.allCases)
    func transactionalRoleChanges(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let hal = try await UsersTests.signUp(client, "hal")
            let staff = try await Roles.createRole(client, "Staff")
            let note = try await Support.create(client, "Notes", ["ACL": Self.readableBy("Staff")], master: true)
            let join: ParseValue = ["method": "PUT", "path": .string("/parse/roles/\(staff)"), "body": ["users": Roles.addUsers(hal.id)]]
            let refused: ParseValue = ["method": "POST", "path": "/parse/roles", "body": ["name": "Staff", "ACL": Roles.publicRead]]
            let rolledBack = try await client.post("/batch", ["requests": [join, refused], "transaction": true], master: true)
            #expect(rolledBack.status == 400, "\(rolledBack.body)")
            #expect(try await Self.access(client, note, hal.token).get == false)
            let committed = try await client.post("/batch", ["requests": [join], "transaction": true], master: true)
            #expect(committed.body.arrayValue?.first?["success"] != nil, "\(committed.body)")
            #expect(try await Self.access(client, note, hal.token).get == true)
        }
    }

    @Test("cycles end where they close: each role in a cycle is held once", arguments: TestStore.allCases)
    func cyclesResolveOnce(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let eve = try await UsersTests.signUp(client, "eve")
            let a = try await Roles.createRole(client, "A", ["users": Roles.addUsers(eve.id)])
            let b = try await Roles.createRole(client, "B", ["roles": Roles.addRoles(a)])
            let c = try await Roles.createRole(client, "C", ["roles": Roles.addRoles(b)])
            #expect(try await client.put("/roles/\(a)", ["roles": Roles.addRoles(c, a)], master: true).status == 200)
            let note = try await Support.create(client, "Notes", ["ACL": Self.readableBy("C")], master: true)
            #expect(try await Self.access(client, note, eve.token) == (true, true, true))
        }
    }

    @Test("a user past the bound on roles is refused with a clear 119, not answered with some of them", arguments: TestStore.allCases)
    func tooManyRolesIsAClearError(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            let fay = try await UsersTests.signUp(client, "fay")
            let base = try await Roles.createRole(client, "Base", ["users": Roles.addUsers(fay.id)])
            // Base's members inherit every one of these.
            try await Support.batchCreate(client, "_Role", count: UserRoles.maximumRoles) { index in
                ["name": .string("Inherited\(index)"), "ACL": Roles.publicRead, "roles": Roles.addRoles(base)]
            }
            let refused = try await client.get("/classes/Notes", sessionToken: fay.token)
            Support.expectError(refused, status: 403, code: 119)
            #expect(refused["error"]?.stringValue?.contains("more than \(UserRoles.maximumRoles) roles") == true, "\(refused.body)")
            // One fewer, and the user is served again.
            let last = try #require(Support.ids(try await client.get("/roles", query: ["where": ["name": "Inherited0"]])).first)
            #expect(try await client.delete("/roles/\(last)", master: true).status == 200)
            #expect(try await client.get("/classes/Notes", sessionToken: fay.token).status == 200)
        }
    }

    @Test("a hook's store calls act as its caller, with the caller's roles, inherited ones included", arguments: TestStore.allCases)
    func hookStoreCallsCarryTheRoles(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.function("secretTitles") { request in
            .array(try await request.store.find(ParseQuery("Notes")).map { $0["title"] ?? .null })
        }
        try await UsersTests.withClient(store, hooks) { client in
            let gil = try await UsersTests.signUp(client, "gil")
            let crew = try await Roles.createRole(client, "Crew", ["users": Roles.addUsers(gil.id)])
            try await Roles.createRole(client, "Officers", ["roles": Roles.addRoles(crew)])
            try await Support.create(client, "Notes", ["title": "orders", "ACL": Self.readableBy("Officers")], master: true)
            #expect(try await client.post("/functions/secretTitles", sessionToken: gil.token)["result"] == ["orders"])
            #expect(try await client.post("/functions/secretTitles")["result"] == [])
        }
    }
}

/// Two apps on one server: a role of one app, whatever it names, never opens another app's objects.
@Suite("Roles: apps apart")
struct RoleIsolationTests {
    /// Runs `body` with clients of the apps `a` and `b`, served side by side through one router.
    static func withTwoApps(_ store: TestStore, _ body: @Sendable (ParseTestClient, ParseTestClient) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-roles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = UsersTests.fast
        configuration.dataDirectory = folder.path
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        try await store.configuring(configuration) { configuration in
            let server = try await CloudletApplication(
                configuration: configuration,
                apps: ["a", "b"].map {
                    AppDefinition(id: $0, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "\($0)-client", masterKey: "\($0)-master")
                },
                logger: logger)
            defer { server.closeDatabase() }
            try await Application(router: server.router(), logger: logger).test(.router) { client in
                let transport: ParseTestClient.Transport = { method, uri, headers, requestBody in
                    let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                    return (response.status.code, response.headers, response.body)
                }
                try await body(
                    ParseTestClient(appId: "a", clientKey: "a-client", masterKey: "a-master", transport: transport),
                    ParseTestClient(appId: "b", clientKey: "b-client", masterKey: "b-master", transport: transport))
            }
        }
    }

    @Test("another app's role of the same name, naming this app's user, grants nothing here", arguments: TestStore.allCases)
    func anotherAppsRolesStayThere(store: TestStore) async throws {
        try await Self.withTwoApps(store) { a, b in
            let victim = try await UsersTests.signUp(a, "victim")
            try await RoleRoutesTests.createRole(a, "Admins")
            let secret = try await Support.create(a, "Notes", ["ACL": RoleHierarchyTests.readableBy("Admins")], master: true)
            // App b's master key makes its own Admins, holding a user with the victim's id.
            try await RoleRoutesTests.createRole(b, "Admins", ["users": RoleRoutesTests.addUsers(victim.id)])
            let attacker = try await UsersTests.signUp(b, "attacker")
            try await RoleRoutesTests.createRole(b, "Everyone", ["users": RoleRoutesTests.addUsers(attacker.id)])
            #expect(try await RoleHierarchyTests.access(a, secret, victim.token) == (false, false, false))
            // Sessions are the app's own: b's session token is no session in a.
            Support.expectError(try await a.get("/classes/Notes", sessionToken: attacker.token), status: 400, code: 209)
        }
    }
}
