import Cloudlet
import CloudletTesting
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import CloudletPostgres
@testable import CloudletRuntime
@testable import CloudletSQLite

/// Two nodes on one PostgreSQL database: what one node's writes change — a session ended, a role's
/// members, a class's CLPs, the config — is seen by the other node's caches within a second, by
/// the notification the write sends at its commit; a node that lost its listening connection
/// holds nothing stale once it listens again; a change no one hears of is seen within a minute.
///
/// Node B is a runtime whose accounts, class schemas and config are the app's PostgreSQL stores
/// (its objects and the rest in a SQLite file of its own: the PostgreSQL object store does not yet
/// stand behind ``ObjectStorage``); node A writes through the PostgreSQL stores themselves.
@Suite struct PostgresCacheInvalidationTests {
    static let now = Date()
    /// How soon another node's change must be seen (what the issue asks).
    static let propagation: Duration = .seconds(1)
    /// How long a node may take to listen again once its connection was lost (it waits a second first).
    static let relisten: Duration = .seconds(15)

    /// Node B of the app of `schema` on `database`: its sessions, roles, schemas and config from
    /// PostgreSQL, and its caches told of every node's changes.
    static func node(_ database: CloudletPostgres.PostgresDatabase, _ schema: PostgresAppSchema, over sqlite: SQLiteAppDatabase) async throws -> AppRuntime {
        var stores = AppStores(sqlite)
        stores.accounts = try await PostgresAccountStore(database, schema: schema)
        stores.schemas = try await PostgresSchemaStore(database, schema: schema)
        stores.config = try await PostgresGlobalConfigStore(database, schema: schema)
        stores.changes = await database.storeChanges(of: schema)
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        return AppRuntime(
            appId: "test", stores: stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: SystemClock(), logger: logger,
            hookLogger: logger)
    }

    /// Runs `body` with node A's database and the app's schema, node B over them, and node B's database.
    static func withTwoNodes(
        _ body: (CloudletPostgres.PostgresDatabase, PostgresAppSchema, AppRuntime, CloudletPostgres.PostgresDatabase) async throws -> Void
    ) async throws {
        try await TemporaryPostgres.with { database, schema in
            _ = try await PostgresSchemaStore(database, schema: schema)
            try await TemporaryPostgres.secondNode { other in
                try await TemporaryStorage.with { sqlite, _ in try await body(database, schema, try await node(other, schema, over: sqlite), other) }
            }
        }
    }

    /// Whether `condition` holds within `bound`, looked at every 10 ms.
    static func eventually(within bound: Duration = propagation, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + bound
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    static func user(_ id: String) -> ParseObject {
        ParseObject(className: "_User", objectId: id, createdAt: now, updatedAt: now, fields: ["username": .string(id)])
    }

    static func session(_ token: String, of userId: String, from installation: String? = nil) -> SessionRecord {
        SessionRecord(tokenHash: SessionToken.hash(token), userId: userId, installationId: installation, createdAt: now, expiresAt: now + 3600)
    }

    /// The caller `token` stands for on `node`.
    static func caller(_ node: AppRuntime, _ token: String) async throws -> Caller {
        try await node.accounts.caller(sessionToken: token, installationId: nil, requestId: "test")
    }

    /// Whether `node` has `token` cached.
    static func isCached(_ node: AppRuntime, _ token: String) -> Bool {
        if case .cached = node.context.sessionCache.lookup(SessionToken.hash(token), now: Date()) { return true }
        return false
    }

    /// The code of the Parse error `body` throws, nil if it succeeds.
    static func refusal(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? ParseError)?.code ?? -1
        }
    }

    /// CLPs that let only the master key find and get.
    static func masterOnly() throws -> ClassLevelPermissions {
        try ClassLevelPermissions(json: ["find": [:], "get": [:], "count": [:]], fields: [:])
    }

    @Test func everyWriteThatEndsASessionThroughOneNodeEndsItInTheOthersCache() async throws {
        try await Self.withTwoNodes { database, schema, b, _ in
            let accounts = try await PostgresAccountStore(database, schema: schema)
            let objects = try await PostgresObjectStore(database, schema: schema)
            try await accounts.insertUser(Self.user("u1"), passwordHash: "h", session: Self.session("logout", of: "u1"), outbox: nil, alongside: [])
            let ends: [(token: String, end: () async throws -> Void)] = [
                ("logout", { _ = try await accounts.deleteSession(tokenHash: SessionToken.hash("logout")) }),
                ("replaced", { try await accounts.insertSession(Self.session("replacing", of: "u1", from: "phone")) }),
                (
                    "password",
                    {
                        let change = ObjectChanges(fields: [:], password: PasswordChange(hash: "new", keptSessionTokenHash: nil))
                        _ = try await objects.update("_User", id: "u1", changes: change, updatedAt: Self.now, check: { _ in }, outbox: nil)
                    }
                ),
                ("deleted", { try await objects.delete("_User", id: "u1", check: { _ in }, outbox: nil) }),
            ]
            for (token, end) in ends {
                if token != "logout" { try await accounts.insertSession(Self.session(token, of: "u1", from: token == "replaced" ? "phone" : nil)) }
                try await Self.settle(b, after: database, schema)
                #expect(try await Self.caller(b, token).userId == "u1")
                #expect(Self.isCached(b, token))
                try await end()
                #expect(await Self.eventually { !Self.isCached(b, token) }, "node B still holds the session ended by \(token)")
                #expect(await Self.refusal { _ = try await Self.caller(b, token) } == 209, "\(token)")
            }
        }
    }

    @Test func aRoleMembershipChangedThroughOneNodeChangesTheOthersCachedRoles() async throws {
        try await Self.withTwoNodes { database, schema, b, _ in
            let accounts = try await PostgresAccountStore(database, schema: schema)
            let objects = try await PostgresObjectStore(database, schema: schema)
            try await accounts.insertUser(Self.user("u1"), passwordHash: "h", session: Self.session("t1", of: "u1"), outbox: nil, alongside: [])
            var members = RelationChange(targetClass: "_User")
            members.adding = ["u1"]
            let role = ParseObject(className: "_Role", objectId: "r1", createdAt: Self.now, updatedAt: Self.now, fields: ["name": "Admins"])
            try await objects.insert(role, relations: ["users": members])
            try await Self.settle(b, after: database, schema)
            #expect(try await Self.caller(b, "t1").roles == ["Admins"])

            var leaving = RelationChange(targetClass: "_User")
            leaving.removing = ["u1"]
            let change = ObjectChanges(fields: ["users": .operation(.relation(leaving))])
            _ = try await objects.update("_Role", id: "r1", changes: change, updatedAt: Self.now, check: { _ in }, outbox: nil)
            #expect(await Self.eventually { !Self.isCached(b, "t1") })
            #expect(try await Self.caller(b, "t1").roles == [])
        }
    }

    @Test func aCLPChangedThroughOneNodeIsEnforcedByTheOther() async throws {
        try await Self.withTwoNodes { database, schema, b, _ in
            let schemas = try await PostgresSchemaStore(database, schema: schema)
            try await schemas.createClass(StoredClassSchema(className: "Posts", fieldTypes: ["title": .string]))
            try await Self.settle(b, after: database, schema)
            let anyone = Caller(isMaster: false, requestId: "test")
            let find = { _ = try await b.reads.find(ParseQuery("Posts"), caller: anyone) }
            #expect(await Self.refusal(find) == nil, "open at first, and cached")

            var change = SchemaChange()
            change.permissions = try Self.masterOnly()
            try await schemas.updateClass("Posts", change)
            #expect(await Self.eventually { await Self.refusal(find) == 119 })
        }
    }

    @Test func theConfigChangedThroughOneNodeIsReadByTheOther() async throws {
        try await Self.withTwoNodes { database, schema, b, _ in
            let master = Caller(isMaster: true, requestId: "test")
            #expect(try await b.config.read(caller: master).params["motd"] == nil)
            try await PostgresGlobalConfigStore(database, schema: schema).updateGlobalConfig { config in
                var config = config
                config.params["motd"] = "hello"
                return config
            }
            #expect(try await b.config.read(caller: master).params["motd"] == "hello")
        }
    }

    @Test func aNodeThatListensAgainHoldsNothingStale() async throws {
        try await Self.withTwoNodes { database, schema, b, other in
            let accounts = try await PostgresAccountStore(database, schema: schema)
            let schemas = try await PostgresSchemaStore(database, schema: schema)
            try await accounts.insertUser(Self.user("u1"), passwordHash: "h", session: Self.session("t1", of: "u1"), outbox: nil, alongside: [])
            try await schemas.createClass(StoredClassSchema(className: "Posts", fieldTypes: ["title": .string]))
            try await Self.settle(b, after: database, schema)
            let anyone = Caller(isMaster: false, requestId: "test")
            let find = { _ = try await b.reads.find(ParseQuery("Posts"), caller: anyone) }
            #expect(await Self.refusal(find) == nil)
            _ = try await Self.caller(b, "t1")

            // Changed behind the stores' backs, so that no notification tells of it: the caches answer as before.
            try await database.execute("DELETE FROM \(schema.quoted).sessions")
            try await database.execute(
                "UPDATE \(schema.quoted).classes SET permissions = $1 WHERE class = 'Posts'", PostgresBindings(JSONWriter.string(try Self.masterOnly().json)))
            #expect(try await Self.caller(b, "t1").userId == "u1")
            #expect(await Self.refusal(find) == nil)

            // Node B's listening connection alone: the other tests' nodes listen on the same server.
            let listener = try #require(other.notifications.listenerProcessId)
            let killed = try await database.execute("SELECT pg_terminate_backend(\(listener))")
            #expect(killed == 1)
            #expect(await Self.eventually(within: Self.relisten) { await Self.refusal { _ = try await Self.caller(b, "t1") } == 209 })
            #expect(await Self.refusal(find) == 119)

            // Listening again: a change made through a store is heard once more.
            var change = SchemaChange()
            change.permissions = .open
            try await schemas.updateClass("Posts", change)
            #expect(await Self.eventually(within: Self.relisten) { await Self.refusal(find) == nil })
        }
    }

    @Test func aClassSchemaChangedWhereNoOneHearsIsReadAgainWithinAMinute() async throws {
        try await TemporaryStorage.with { sqlite, _ in
            let clock = ManualClock()
            var logger = Logger(label: "cloudlet")
            logger.logLevel = .critical
            let stores = AppStores(sqlite)
            let node = AppRuntime(
                appId: "test", stores: stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: clock, logger: logger,
                hookLogger: logger)
            try await stores.schemas.createClass(StoredClassSchema(className: "Posts", fieldTypes: ["title": .string]))
            let anyone = Caller(isMaster: false, requestId: "test")
            let find = { _ = try await node.reads.find(ParseQuery("Posts"), caller: anyone) }
            #expect(await Self.refusal(find) == nil)

            // Straight to the store, as a change no notification tells of.
            var change = SchemaChange()
            change.permissions = try Self.masterOnly()
            try await stores.schemas.updateClass("Posts", change)
            clock.advance(by: .seconds(59))
            #expect(await Self.refusal(find) == nil, "still cached")
            clock.advance(by: .seconds(2))
            #expect(await Self.refusal(find) == 119)
        }
    }

    /// What a feed told, in order.
    final class Heard: Sendable {
        let changes = Mutex<[StoreChange]>([])
    }

    /// Returns once `node` has heard every change made so far through `database`: notifications
    /// reach a node in the order of their commits.
    static func settle(_ node: AppRuntime, after database: CloudletPostgres.PostgresDatabase, _ schema: PostgresAppSchema) async throws {
        let heard = Heard()
        try #require(node.context.stores.changes).subscribe(heard) { heard, change in heard.changes.withLock { $0.append(change) } }
        try await database.transaction { connection in
            try await PostgresStoreChanges.notify(.classSchema("Settled"), in: schema, on: connection, logger: database.logger)
        }
        #expect(await Self.eventually { heard.changes.withLock { $0.contains(.classSchema("Settled")) } })
    }

    @Test func aDetailTooLongForANotificationForgetsMore() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let heard = Heard()
                await other.storeChanges(of: schema).subscribe(heard) { heard, change in heard.changes.withLock { $0.append(change) } }
                let long = String(repeating: "u", count: 9000)
                try await database.transaction { connection in
                    try await PostgresStoreChanges.notify(.sessions(.user(id: long)), in: schema, on: connection, logger: database.logger)
                    try await PostgresStoreChanges.notify(.sessions(.user(id: "u1")), in: schema, on: connection, logger: database.logger)
                }
                #expect(await Self.eventually { heard.changes.withLock { $0.contains(.sessions(.user(id: "u1"))) } })
                #expect(heard.changes.withLock { $0.suffix(2) } == [.sessions(.everyone), .sessions(.user(id: "u1"))])
            }
        }
    }
}
