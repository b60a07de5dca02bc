import Cloudlet
import Foundation
import CloudletServer
import CloudletTesting
import Synchronization
import Testing

@Suite("Hook time limits")
struct TimeLimitTests {
    /// A hook that never returns and never looks at cancellation.
    @Sendable static func hang() async {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }

    @Test func aBeforeSavePastItsDeadlineTimesOutAndWritesNothing() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Slow") { _ in await Self.hang() }
        let harness = try HookHarness(registry: hooks)
        let save = Task { try await harness.create("Slow", ["n": 1]) }
        try await harness.waitForInvocations(.beforeSave, "Slow")
        harness.clock.advance(by: .seconds(3))
        let error = try await #require(throws: ParseError.self) { try await save.value }
        #expect(error.code == 124)
        #expect(error.message.contains("timed out"))
        #expect(try await harness.find(ParseQuery("Slow")).isEmpty)
        #expect(harness.counts(.beforeSave, "Slow").timeouts == 1)
    }

    @Test func theDeadlineIsTheHooksOwnLimitNotTheDefault() async throws {
        var hooks = HookRegistry()
        hooks.function("quick", timeLimit: .milliseconds(500)) { _ in await Self.hang(); return nil }
        let harness = try HookHarness(registry: hooks)
        let call = Task { try await harness.call("quick") }
        try await harness.waitForInvocations(.function, "quick")
        // The call is counted just before its deadline's alarm is set.
        await harness.clock.parked()
        harness.clock.advance(by: .milliseconds(499))
        #expect(harness.clock.pendingAlarms == 1)
        harness.clock.advance(by: .milliseconds(1))
        await #expect(throws: ParseError.self) { try await call.value }
    }

    @Test func aTimedOutHookIsCancelled() async throws {
        let sawCancellation = Mutex(false)
        var hooks = HookRegistry()
        hooks.function("sleepy") { _ in
            do { try await Task.sleep(for: .seconds(60)) } catch { sawCancellation.withLock { $0 = true } }
            return nil
        }
        let harness = try HookHarness(registry: hooks)
        let call = Task { try await harness.call("sleepy") }
        try await harness.waitForInvocations(.function, "sleepy")
        await harness.clock.parked()
        harness.clock.advance(by: .seconds(15))
        await #expect(throws: ParseError.self) { try await call.value }
        for _ in 0..<500 where !sawCancellation.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        #expect(sawCancellation.withLock { $0 })
    }

    @Test func aNestedHookGetsOnlyTheTimeLeftOfItsCaller() async throws {
        let innerDeadline = Mutex<Double?>(nil)
        var hooks = HookRegistry()
        hooks.beforeSave("Outer", timeLimit: .seconds(2)) { request in
            _ = try await request.store.save(ParseObject(className: "Inner", fields: ["x": 1]))
        }
        hooks.beforeSave("Inner", timeLimit: .seconds(10)) { request in
            innerDeadline.withLock { $0 = request.deadline.timeIntervalSince(request.clock.now) }
        }
        let harness = try HookHarness(registry: hooks)
        try await harness.create("Outer", ["y": 1])
        let left = try #require(innerDeadline.withLock { $0 })
        #expect(left <= 2)
        #expect(left > 0)
    }

    @Test func oneHangingHookDoesNotDelayOtherCalls() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Slow") { _ in await Self.hang() }
        hooks.function("fast") { _ in "ok" }
        let harness = try HookHarness(registry: hooks)
        let slow = Task { try await harness.create("Slow", [:]) }
        try await harness.waitForInvocations(.beforeSave, "Slow")
        #expect(try await harness.call("fast") == "ok")
        #expect(try await harness.create("Other", ["a": 1])["a"] == 1)
        harness.clock.advance(by: .seconds(3))
        await #expect(throws: ParseError.self) { try await slow.value }
    }

    @Test func anAfterSaveTimeoutIsCountedButTheSaveStands() async throws {
        var hooks = HookRegistry()
        hooks.afterSave("Posts") { _ in await Self.hang() }
        let harness = try HookHarness(registry: hooks)
        let save = Task { try await harness.create("Posts", ["t": "x"]) }
        try await harness.waitForInvocations(.afterSave, "Posts")
        harness.clock.advance(by: .seconds(3))
        let saved = try await save.value
        #expect(saved.objectId != nil)
        #expect(harness.counts(.afterSave, "Posts").timeouts == 1)
        #expect(try await harness.find(ParseQuery("Posts")).count == 1)
        try await harness.waitUntilNoAfterHookIsQueued()
    }
}
