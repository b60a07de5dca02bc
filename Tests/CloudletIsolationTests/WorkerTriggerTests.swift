import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing
@testable import cloudlet_fixture

/// The find and login triggers run in an in-memory worker as in-process: over the wire, through
/// the worker's one registry dispatch, under their time limits.
@Suite struct WorkerTriggerTests {
    @Test func findHooksInAWorkerChangeTheQueryAndTheResults() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            for n in 1...6 { try await harness.create("Shelf", ["n": .number(Double(n)), "hidden": .bool(n == 6), "title": "t"]) }
            let found = try await harness.find(ParseQuery("Shelf", order: ["n"]))
            #expect(found.map { $0["n"]?.intValue } == [5, 3], "hidden 6 filtered, -n order, limit 3, then 4 dropped")
            #expect(found.allSatisfy { $0["seen"] == true && $0["title"] == nil })
            #expect(try await harness.count(ParseQuery("Shelf")) == 5)
            let id = try #require(found.first?.objectId)
            #expect(try await harness.get("Shelf", id: id)?["seen"] == true)
            let refused = try await #require(throws: ParseError.self) {
                try await harness.find(ParseQuery("Shelf").whereKey("refuse", equalTo: true))
            }
            #expect(refused == HookError.validation("no refusing"))
        }
    }

    @Test func aBeforeFindInAWorkerPastItsLimitTimesOutWith124() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            let query = Task { try await harness.find(ParseQuery("SlowShelf")) }
            try await harness.waitForInvocations(.beforeFind, "SlowShelf")
            harness.clock.advance(by: .milliseconds(500))
            let error = try await #require(throws: ParseError.self) { try await query.value }
            #expect(error.code == 124)
            #expect(harness.counts(.beforeFind, "SlowShelf").timeouts == 1)
        }
    }

    /// The fixture's one worker takes 16 calls at once: a 17th waits for room, and its
    /// deadline ends that wait even though no room ever comes (the 16 wait for ever, deaf to
    /// cancellation, and the test's clock never reaches their 60 s limit).
    @Test func aCallWaitingForRoomOnAWorkerTimesOutAtItsDeadline() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            let running = (0..<16).map { _ in Task { try await harness.call("wait") } }
            try await harness.waitForInvocations(.function, "wait", count: 16)
            try await Task.sleep(for: .milliseconds(200))
            let queued = Task { try await harness.call("pid") }
            try await harness.waitForInvocations(.function, "pid")
            harness.clock.advance(by: .seconds(15))
            // Were the wait deaf to the deadline, the call would wait for ever: cancelled
            // after 10 s instead, it fails with 141, not 124.
            let watchdog = Task { try await Task.sleep(for: .seconds(10)); queued.cancel() }
            defer { watchdog.cancel() }
            let error = try await #require(throws: ParseError.self) { try await queued.value }
            #expect(error.code == 124)
            #expect(harness.counts(.function, "pid").timeouts == 1)
            harness.clock.advance(by: .seconds(45))
            for call in running { #expect(try await #require(throws: ParseError.self) { try await call.value }.code == 124) }
        }
    }

    @Test func loginHooksInAWorkerRefuseBannedUsersAndRecordLoginsAndLogouts() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            try await harness.signUp(username: "mallory", password: "pw", ["banned": true])
            try await harness.signUp(username: "newbie", password: "pw", ["unverified": true])
            let alice = try await harness.signUp(username: "alice", password: "pw")
            let banned = try await #require(throws: ParseError.self) { try await harness.logIn(username: "mallory", password: "pw") }
            #expect(banned == HookError.failed("this account is suspended"))
            let unverified = try await #require(throws: ParseError.self) { try await harness.logIn(username: "newbie", password: "pw") }
            #expect(unverified.code == 142)
            let login = try await harness.logIn(username: "alice", password: "pw", installationId: "phone-1")
            try await harness.logOut(sessionToken: login.sessionToken)
            let logins = try await harness.find(ParseQuery("LoginLog"))
            #expect(logins.map { [$0["userId"], $0["actingUserId"]] } == [[.string(alice.objectId!), .string(alice.objectId!)]])
            let logouts = try await harness.find(ParseQuery("LogoutLog"))
            #expect(logouts.map { [$0["userId"], $0["installationId"]] } == [[.string(alice.objectId!), "phone-1"]])
        }
    }
}
