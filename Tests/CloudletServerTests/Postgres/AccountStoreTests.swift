import Cloudlet
@testable import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres

/// Users, sessions, email tokens and roles on both stores, through ``AccountStorage`` and the
/// object writes of system classes: credentials kept out of the objects, unique values kept
/// unique — also by two nodes writing at once — a password change and a user's deletion taking
/// its sessions in the write's transaction, and one app's accounts apart from another's.
@Suite struct AccountStoreTests {
    typealias Stores = (accounts: any AccountStorage, objects: ObjectStoreUnderTest)

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func open(_ app: TestApp) -> () async throws -> Stores {
        { try await app.accounts() }
    }

    static func object(_ className: String, _ id: String, _ fields: [String: ParseValue]) -> ParseObject {
        var object = ParseObject(className: className, fields: fields)
        object.objectId = id
        object.createdAt = now
        object.updatedAt = now
        return object
    }

    static func user(_ id: String, _ username: String, email: String? = nil) -> ParseObject {
        var fields: [String: ParseValue] = ["username": .string(username)]
        if let email { fields["email"] = .string(email) }
        return object("_User", id, fields)
    }

    static func session(_ token: String, user: String, installation: String? = nil) -> SessionRecord {
        SessionRecord(tokenHash: token, userId: user, installationId: installation, createdAt: now, expiresAt: now + 3600)
    }

    /// Signs `user` up with password hash `hash-<id>` and the session `token-<id>`.
    static func signUp(_ stores: Stores, _ user: ParseObject) async throws {
        let id = try #require(user.objectId)
        try await stores.accounts.insertUser(
            user, passwordHash: "hash-\(id)", session: session("token-\(id)", user: id), outbox: nil, alongside: [])
    }

    static func expectCode(_ code: Int, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: ParseError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// The code of the Parse error `body` throws (-1 for another error), nil if it succeeds.
    static func refusal(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? ParseError)?.code ?? -1
        }
    }

    @Test(arguments: TestStore.allCases) func aSignUpStoresTheUserItsPasswordAndItsSessionButNeverTheHashInTheObject(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            try await Self.signUp(stores, Self.user("u1", "ann", email: "Ann@Example.com"))
            #expect(try await stores.accounts.passwordHash(ofUser: "u1") == "hash-u1")
            #expect(try await stores.accounts.passwordHash(ofUser: "nobody") == nil)
            #expect(try await stores.accounts.session(tokenHash: "token-u1")?.userId == "u1")
            let stored = try #require(try await stores.objects.fetch("_User", "u1"))
            #expect(stored.fields == ["username": "ann", "email": "Ann@Example.com"])
        }
    }

    @Test(arguments: TestStore.allCases) func usernamesEmailsAuthDataIdsRoleNamesAndInstallationIdsStayUnique(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            var linked = Self.user("u1", "ann", email: "ann@example.com")
            linked["authData"] = ["anonymous": ["id": "device-1"]]
            try await Self.signUp(stores, linked)
            await Self.expectCode(202) { try await Self.signUp(stores, Self.user("u2", "ann")) }
            await Self.expectCode(203) { try await Self.signUp(stores, Self.user("u2", "bob", email: "ANN@example.COM")) }
            var other = Self.user("u2", "bob")
            other["authData"] = ["anonymous": ["id": "device-1"]]
            await Self.expectCode(208) { try await Self.signUp(stores, other) }
            #expect(try await stores.objects.fetch("_User", "u2") == nil)
            #expect(try await stores.accounts.passwordHash(ofUser: "u2") == nil, "a refused sign-up stores no credentials")
            #expect(try await stores.accounts.session(tokenHash: "token-u2") == nil)

            // Through the object writes too (a master key's save), on insert and on update.
            await Self.expectCode(202) { try await stores.objects.insert(Self.user("u3", "ann"), nil) }
            try await Self.signUp(stores, Self.user("u2", "bob"))
            await Self.expectCode(203) {
                _ = try await stores.objects.update("_User", "u2", ObjectChanges(fields: ["email": .set("Ann@Example.com")]), Self.now, { _ in }, nil)
            }
            var linking = ObjectChanges(fields: [:])
            linking.authData = ["anonymous": ["id": "device-1"]]
            await Self.expectCode(208) { _ = try await stores.objects.update("_User", "u2", linking, Self.now, { _ in }, nil) }
            _ = try await stores.objects.update("_User", "u2", ObjectChanges(fields: ["email": .set("bob@example.com")]), Self.now, { _ in }, nil)
            #expect(try await stores.objects.fetch("_User", "u2")?["email"] == "bob@example.com")

            try await stores.objects.insert(Self.object("_Role", "r1", ["name": "Staff"]), nil)
            await Self.expectCode(137) { try await stores.objects.insert(Self.object("_Role", "r2", ["name": "Staff"]), nil) }
            try await stores.objects.insert(Self.object("_Installation", "i1", ["installationId": "abc", "deviceType": "ios"]), nil)
            await Self.expectCode(137) {
                try await stores.objects.insert(Self.object("_Installation", "i2", ["installationId": "abc", "deviceType": "ios"]), nil)
            }
            // Values that are not unique elsewhere: another class's `username`, users without an email.
            try await stores.objects.insert(Self.object("Note", "n1", ["username": "ann"]), nil)
            try await Self.signUp(stores, Self.user("u4", "cat"))
        }
    }

    /// Two nodes on PostgreSQL; on SQLite, whose file one process writes, two writes at once through it.
    @Test(arguments: TestStore.allCases) func twoNodesSavingOneUsernameOrInstallationIdAtOnceMakeOneObject(_ store: TestStore) async throws {
        try await store.with(Self.open) { first, reopen in
            let second = store == .postgres ? try await reopen() : first
            for round in 0..<8 {
                let name = "name-\(round)"
                async let a = Self.refusal { try await Self.signUp(first, Self.user("a\(round)", name)) }
                async let b = Self.refusal { try await Self.signUp(second, Self.user("b\(round)", name)) }
                let refused = [await a, await b].compactMap { $0 }
                #expect(refused == [202], "round \(round)")
                let stored = [try await first.objects.fetch("_User", "a\(round)"), try await first.objects.fetch("_User", "b\(round)")]
                #expect(stored.compactMap { $0 }.count == 1)
                let device: [String: ParseValue] = ["installationId": .string(name), "deviceType": "ios"]
                async let c = Self.refusal { try await first.objects.insert(Self.object("_Installation", "c\(round)", device), nil) }
                async let d = Self.refusal { try await second.objects.insert(Self.object("_Installation", "d\(round)", device), nil) }
                #expect([await c, await d].compactMap { $0 } == [137], "round \(round): one installation per installationId")
            }
        }
    }

    @Test(arguments: TestStore.allCases) func aSessionMadeOnOneNodeIsReadChangedAndEndedOnTheOther(_ store: TestStore) async throws {
        try await store.with(Self.open) { first, reopen in
            let second = try await reopen()
            try await Self.signUp(first, Self.user("u1", "ann"))
            try await first.accounts.insertSession(Self.session("phone-1", user: "u1", installation: "phone"))
            let read = try #require(try await second.accounts.session(tokenHash: "phone-1"))
            #expect(read.userId == "u1" && read.installationId == "phone" && read.expiresAt == Self.now + 3600)
            #expect(try await second.accounts.countSessions(matching: SessionFilter(userId: "u1")) == 2)
            #expect(try await second.accounts.sessions(matching: SessionFilter(userId: "u1"), skip: 1, limit: 5).count == 1)
            #expect(try await second.accounts.sessions(matching: SessionFilter(installationId: "phone"), skip: 0, limit: 5).map(\.tokenHash) == ["phone-1"])

            #expect(try await second.accounts.updateSession(objectId: read.objectId, fields: ["label": "mine"], updatedAt: Self.now + 5))
            #expect(try await !second.accounts.updateSession(objectId: "missing", fields: [:], updatedAt: Self.now))
            let updated = try await first.accounts.session(tokenHash: "phone-1")
            #expect(updated?.fields == ["label": "mine"] && updated?.updatedAt == Self.now + 5)

            // A new login from the same installation, on either node, replaces the session; logins at once leave one.
            async let a: Void = first.accounts.insertSession(Self.session("phone-2", user: "u1", installation: "phone"))
            async let b: Void = second.accounts.insertSession(Self.session("phone-3", user: "u1", installation: "phone"))
            _ = try await (a, b)
            let phone = try await first.accounts.sessions(matching: SessionFilter(userId: "u1", installationId: "phone"), skip: 0, limit: 5)
            #expect(phone.count == 1 && ["phone-2", "phone-3"].contains(phone.first?.tokenHash ?? ""))
            #expect(try await first.accounts.session(tokenHash: "phone-1") == nil)

            #expect(try await second.accounts.deleteSession(tokenHash: "token-u1"))
            #expect(try await !second.accounts.deleteSession(tokenHash: "token-u1"))
            #expect(try await first.accounts.session(tokenHash: "token-u1") == nil)
        }
    }

    @Test(arguments: TestStore.allCases) func aPasswordChangeEndsTheOtherSessionsInTheUpdateAndARefusedOneChangesNothing(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            try await Self.signUp(stores, Self.user("u1", "ann"))
            try await stores.accounts.insertSession(Self.session("laptop", user: "u1", installation: "laptop"))
            try await stores.accounts.insertSession(Self.session("phone", user: "u1", installation: "phone"))
            let change = PasswordChange(hash: "new-hash", keptSessionTokenHash: "phone")
            await Self.expectCode(142) {
                _ = try await stores.objects.update(
                    "_User", "u1", ObjectChanges(fields: ["title": .set("x")], password: change), Self.now,
                    { _ in throw ParseError.validation("no") }, nil)
            }
            #expect(try await stores.accounts.passwordHash(ofUser: "u1") == "hash-u1")
            #expect(try await stores.accounts.countSessions(matching: SessionFilter(userId: "u1")) == 3)

            _ = try await stores.objects.update("_User", "u1", ObjectChanges(fields: ["title": .set("x")], password: change), Self.now, { _ in }, nil)
            #expect(try await stores.accounts.passwordHash(ofUser: "u1") == "new-hash")
            #expect(try await stores.accounts.sessions(matching: SessionFilter(userId: "u1"), skip: 0, limit: 10).map(\.tokenHash) == ["phone"])
            #expect(try await stores.objects.fetch("_User", "u1")?.fields == ["username": "ann", "title": "x"])
        }
    }

    @Test(arguments: TestStore.allCases) func aDeletedUsersCredentialsSessionsAndEmailTokensGoWithIt(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            try await Self.signUp(stores, Self.user("u1", "ann", email: "ann@example.com"))
            try await Self.signUp(stores, Self.user("u2", "bob"))
            for user in ["u1", "u2"] {
                try await stores.accounts.replaceEmailToken(
                    EmailTokenRecord(tokenHash: "link-\(user)", purpose: .verifyEmail, userId: user, email: "x@example.com", expiresAt: Self.now + 60))
            }
            _ = try await stores.objects.delete("_User", "u1", { _ in }, nil)
            #expect(try await stores.accounts.passwordHash(ofUser: "u1") == nil)
            #expect(try await stores.accounts.countSessions(matching: SessionFilter(userId: "u1")) == 0)
            #expect(try await stores.accounts.emailToken(hash: "link-u1", purpose: .verifyEmail) == nil)
            #expect(try await stores.accounts.passwordHash(ofUser: "u2") == "hash-u2", "another user keeps its account")
            #expect(try await stores.accounts.emailToken(hash: "link-u2", purpose: .verifyEmail) != nil)
            try await Self.signUp(stores, Self.user("u3", "ann", email: "ann@example.com"))
        }
    }

    @Test(arguments: TestStore.allCases) func anEmailTokenIsReplacedPerPurposeAndTakenOnce(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, reopen in
            let other = try await reopen()
            let token = EmailTokenRecord(tokenHash: "t1", purpose: .resetPassword, userId: "u1", email: "ann@example.com", expiresAt: Self.now + 60)
            try await stores.accounts.replaceEmailToken(token)
            try await stores.accounts.replaceEmailToken(EmailTokenRecord(tokenHash: "v1", purpose: .verifyEmail, userId: "u1", email: "a", expiresAt: Self.now))
            #expect(try await other.accounts.emailToken(hash: "t1", purpose: .resetPassword) == token)
            #expect(try await other.accounts.emailToken(hash: "t1", purpose: .verifyEmail) == nil, "a token serves its own purpose only")
            var newer = token
            newer.tokenHash = "t2"
            try await other.accounts.replaceEmailToken(newer)
            #expect(try await stores.accounts.emailToken(hash: "t1", purpose: .resetPassword) == nil)
            #expect(try await stores.accounts.takeEmailToken(hash: "t2", purpose: .resetPassword) == newer)
            #expect(try await other.accounts.takeEmailToken(hash: "t2", purpose: .resetPassword) == nil)
            #expect(try await other.accounts.emailToken(hash: "v1", purpose: .verifyEmail) != nil)
        }
    }

    @Test(arguments: TestStore.allCases) func usersAreFoundByTheirAuthDataIdsAtMostTwo(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            for (id, provider, providerId) in [("u1", "anonymous", "d1"), ("u2", "apple", "a1"), ("u3", "google", "g1")] {
                var user = Self.user(id, "name-\(id)")
                user["authData"] = .object([provider: ["id": .string(providerId)]])
                try await Self.signUp(stores, user)
            }
            #expect(try await stores.accounts.userIds(linkedTo: [.anonymous: "d1"]) == ["u1"])
            #expect(try await stores.accounts.userIds(linkedTo: [.anonymous: "a1"]).isEmpty, "an id counts at its own provider only")
            #expect(try await stores.accounts.userIds(linkedTo: [.anonymous: "d1", .apple: "a1", .google: "g1"]).count == 2)
            var unlinking = ObjectChanges(fields: [:])
            unlinking.authData = ["anonymous": .null]
            _ = try await stores.objects.update("_User", "u1", unlinking, Self.now, { _ in }, nil)
            #expect(try await stores.accounts.userIds(linkedTo: [.anonymous: "d1"]).isEmpty)
        }
    }

    @Test func everyProviderHasItsUniqueIndexOnPostgreSQL() {
        #expect(Set(AuthProvider.allCases.map(\.rawValue)).isSubset(of: PostgresUniqueValues.indexedProviders))
    }

    @Test(arguments: TestStore.allCases) func installationsAreFoundByTheirIdAndTokenInIdOrder(_ store: TestStore) async throws {
        try await store.with(Self.open) { stores, _ in
            for (id, installationId) in [("i3", "c"), ("i1", "a"), ("i2", "b")] {
                try await stores.objects.insert(
                    Self.object("_Installation", id, ["installationId": .string(installationId), "deviceType": "ios", "deviceToken": "shared"]), nil)
            }
            #expect(try await stores.objects.installations(.installationId, "b", 5).map(\.objectId) == ["i2"])
            #expect(try await stores.objects.installations(.deviceToken, "shared", 2).map(\.objectId) == ["i1", "i2"])
            #expect(try await stores.objects.installations(.deviceToken, "other", 5).isEmpty)
            #expect(try await stores.objects.installations(.installationId, "zzz", 5).isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func theSameUserIdsInTwoAppsStayApart(_ store: TestStore) async throws {
        try await store.with(Self.open) { mine, _ in
            try await store.with(Self.open) { theirs, _ in
                try await Self.signUp(mine, Self.user("u1", "ann", email: "ann@example.com"))
                try await theirs.accounts.insertUser(
                    Self.user("u1", "ann", email: "ann@example.com"), passwordHash: "theirs", session: Self.session("their-token", user: "u1"),
                    outbox: nil, alongside: [])
                try await theirs.objects.insert(Self.object("_Role", "r1", ["name": "Admins"]), nil)
                var members = RelationChange(targetClass: "_User")
                members.adding = ["u1"]
                _ = try await theirs.objects.update("_Role", "r1", ObjectChanges(fields: ["users": .operation(.relation(members))]), Self.now, { _ in }, nil)

                #expect(try await mine.accounts.passwordHash(ofUser: "u1") == "hash-u1")
                #expect(try await mine.accounts.session(tokenHash: "their-token") == nil)
                #expect(try await mine.accounts.roleNames(ofUser: "u1").isEmpty)
                #expect(try await theirs.accounts.roleNames(ofUser: "u1") == ["Admins"])
                _ = try await mine.objects.delete("_User", "u1", { _ in }, nil)
                #expect(try await theirs.accounts.passwordHash(ofUser: "u1") == "theirs")
                #expect(try await theirs.accounts.session(tokenHash: "their-token") != nil)
            }
        }
    }

    @Test(arguments: TestStore.allCases)
    func aPurgeOfTheUsersEndsTheirSessions(_ store: TestStore) async throws {
        try await store.with({ app in { (try await app.accounts().accounts, try await app.schemas().schemas) } }) { stores, _ in
            let (accounts, schemas) = stores
            try await accounts.insertUser(Self.user("u1", "ada"), passwordHash: "h", session: Self.session("t1", user: "u1"), outbox: nil, alongside: [])
            #expect(try await accounts.session(tokenHash: "t1") != nil)
            try await schemas.purge("_User")
            #expect(try await accounts.session(tokenHash: "t1") == nil)
            #expect(try await accounts.passwordHash(ofUser: "u1") == nil)
        }
    }
}
