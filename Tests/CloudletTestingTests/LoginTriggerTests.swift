import Cloudlet
import CloudletServer
import CloudletTesting
import Synchronization
import Testing

@Suite("Login triggers: beforeLogin, afterLogin, afterLogout")
struct LoginTriggerTests {
    /// Hooks that refuse `banned` users (141) and `unverified` ones (142), and record the rest.
    static func hooks(_ seen: Lines) -> HookRegistry {
        var hooks = HookRegistry()
        hooks.beforeLogin { request in
            seen.append("before \(request.user["username"]?.stringValue ?? "?") user \(request.context.user?.id ?? "-")")
            if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
            if request.user["unverified"] == true { throw HookError.validation("verify your email first") }
        }
        hooks.afterLogin { request in
            seen.append("after \(request.user["username"]?.stringValue ?? "?") user \(request.context.user?.id == request.user.objectId)")
        }
        hooks.afterLogout { request in
            let user = request.session["user"]?.pointerValue?.objectId
            seen.append("logout \(user == request.context.user?.id) \(request.session["installationId"]?.stringValue ?? "-")")
        }
        return hooks
    }

    @Test func beforeLoginRefusesABannedUserAndNoSessionIsMade() async throws {
        let seen = Lines()
        let harness = try HookHarness(registry: Self.hooks(seen))
        try await harness.signUp(username: "mallory", password: "pw", ["banned": true])
        try await harness.signUp(username: "newbie", password: "pw", ["unverified": true])
        let banned = try await #require(throws: ParseError.self) { try await harness.logIn(username: "mallory", password: "pw") }
        #expect(banned == HookError.failed("this account is suspended"))
        let unverified = try await #require(throws: ParseError.self) { try await harness.logIn(username: "newbie", password: "pw") }
        #expect(unverified.code == 142)
        #expect(seen.all == ["before mallory user -", "before newbie user -"], "no afterLogin: no session was made")
        #expect(harness.counts(.beforeLogin, "").failures == 2)
    }

    @Test func aWrongPasswordNeverReachesTheHook() async throws {
        let seen = Lines()
        let harness = try HookHarness(registry: Self.hooks(seen))
        try await harness.signUp(username: "alice", password: "pw")
        let error = try await #require(throws: ParseError.self) { try await harness.logIn(username: "alice", password: "nope") }
        #expect(error.code == 101)
        #expect(seen.all.isEmpty)
    }

    @Test func afterLoginRunsAsTheUserOnceTheSessionIsMadeAndAfterLogoutOnceItIsGone() async throws {
        let seen = Lines()
        let harness = try HookHarness(registry: Self.hooks(seen))
        let alice = try await harness.signUp(username: "alice", password: "pw")
        let login = try await harness.logIn(username: "alice", password: "pw", installationId: "phone-1")
        #expect(try await harness.user(sessionToken: login.sessionToken) == alice.objectId)
        try await harness.logOut(sessionToken: login.sessionToken)
        #expect(try await harness.user(sessionToken: login.sessionToken) == nil)
        #expect(seen.all == ["before alice user -", "after alice user true", "logout true phone-1"])
    }

    @Test func anAnonymousLoginRunsTheLoginHooksButItsSignUpDoesNot() async throws {
        let seen = Lines()
        let harness = try HookHarness(registry: Self.hooks(seen))
        let device: ParseValue = ["anonymous": ["id": "device-1"]]
        guard case .signedUp(let saved, _, let username) = try await harness.signIn(authData: device, ["banned": false]) else {
            Issue.record("the first sign-in did not sign up")
            return
        }
        #expect(username.count == 25 && seen.all.isEmpty)
        guard case .loggedIn(let login) = try await harness.signIn(authData: device) else {
            Issue.record("the second sign-in did not log in")
            return
        }
        #expect(login.user.objectId == saved.object.objectId)
        #expect(try await harness.user(sessionToken: login.sessionToken) == saved.object.objectId)
        #expect(seen.all == ["before \(username) user -", "after \(username) user true"])
    }

    @Test func afterLoginAndAfterLogoutErrorsNeverFailTheRequest() async throws {
        var hooks = HookRegistry()
        hooks.afterLogin { _ in throw HookError.failed("after login broke") }
        hooks.afterLogout { _ in throw SomeFailure() }
        let harness = try HookHarness(registry: hooks)
        try await harness.signUp(username: "alice", password: "pw")
        let login = try await harness.logIn(username: "alice", password: "pw")
        #expect(try await harness.user(sessionToken: login.sessionToken) != nil)
        try await harness.logOut(sessionToken: login.sessionToken)
        #expect(harness.counts(.afterLogin, "").failures == 1)
        #expect(harness.counts(.afterLogout, "").failures == 1)
        #expect(harness.logs.all.contains { $0.message == "hook refused" })
    }

    @Test func aBeforeLoginPastItsLimitTimesOutWith124AndMakesNoSession() async throws {
        let afterLogins = Mutex(0)
        var hooks = HookRegistry()
        hooks.beforeLogin(timeLimit: .seconds(2)) { _ in await TimeLimitTests.hang() }
        hooks.afterLogin { _ in afterLogins.withLock { $0 += 1 } }
        let harness = try HookHarness(registry: hooks)
        try await harness.signUp(username: "alice", password: "pw")
        let login = Task { try await harness.logIn(username: "alice", password: "pw") }
        try await harness.waitForInvocations(.beforeLogin, "")
        harness.clock.advance(by: .seconds(2))
        let error = try await #require(throws: ParseError.self) { try await login.value }
        #expect(error.code == 124)
        #expect(afterLogins.withLock { $0 } == 0)
    }

    @Test func typedBeforeLoginDecodesTheUser() async throws {
        struct Member: Decodable, Sendable {
            var username: String
            var plan: String?
        }
        var hooks = HookRegistry()
        hooks.beforeLogin(as: Member.self) { member, _ in
            guard member.plan != "expired" else { throw HookError.validation("\(member.username)'s plan has expired") }
        }
        let harness = try HookHarness(registry: hooks)
        try await harness.signUp(username: "bob", password: "pw", ["plan": "expired"])
        try await harness.signUp(username: "carol", password: "pw", ["plan": "pro"])
        let expired = try await #require(throws: ParseError.self) { try await harness.logIn(username: "bob", password: "pw") }
        #expect(expired == HookError.validation("bob's plan has expired"))
        #expect(try await harness.logIn(username: "carol", password: "pw").user["plan"] == "pro")
    }
}

/// Lines hooks record, across the tasks they run in.
final class Lines: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ line: String) { entries.withLock { $0.append(line) } }
    var all: [String] { entries.withLock { $0 } }
}
