import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Synchronization
import Testing

@Suite("The hook harness")
struct HarnessTests {
    @Test func beforeSaveChangesAndRejectionsBehaveAsOnTheServer() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Notes") { request in
            guard let text = request.object["text"]?.stringValue, !text.isEmpty else { throw HookError.validation("text must not be empty") }
            request.object["text"] = .string(text.uppercased())
        }
        let harness = try HookHarness(registry: hooks)
        #expect(try await harness.create("Notes", ["text": "hi"])["text"] == "HI")
        let error = try await #require(throws: ParseError.self) { try await harness.create("Notes", ["text": ""]) }
        #expect(error == HookError.validation("text must not be empty"))
        #expect(try await harness.find(ParseQuery("Notes")).count == 1)
        #expect(harness.counts(.beforeSave, "Notes") == .init(invocations: 2, failures: 1, timeouts: 0))
    }

    @Test func hooksSeeTheUserAndMasterFlagTheyActFor() async throws {
        let seen = Mutex<[String]>([])
        var hooks = HookRegistry()
        hooks.function("whoami") { request in
            seen.withLock { $0.append("\(request.user?.id ?? "-") \(request.isMaster)") }
            return nil
        }
        let harness = try HookHarness(registry: hooks)
        _ = try await harness.call("whoami", as: .user("u1"))
        _ = try await harness.call("whoami", as: .master)
        _ = try await harness.call("whoami", as: .anonymous)
        #expect(seen.withLock { $0 } == ["u1 false", "- true", "- false"])
    }

    @Test func aclsApplyToTheActingUser() async throws {
        let harness = try HookHarness(registry: HookRegistry())
        let secret = try await harness.create("Notes", ["t": "x", "ACL": ParseACL.only(readers: ["u1"], writers: ["u1"]).json])
        let id = try #require(secret.objectId)
        #expect(try await harness.get("Notes", id: id, as: .user("u1")) != nil)
        #expect(try await harness.get("Notes", id: id, as: .user("u2")) == nil)
        #expect(try await harness.find(ParseQuery("Notes"), as: .anonymous).isEmpty)
        await #expect(throws: ParseError.self) { try await harness.update("Notes", id: id, ["t": "y"], as: .user("u2")) }
        #expect(try await harness.update("Notes", id: id, ["t": "y"], as: .user("u1"))["t"] == "y")
    }

    @Test func hookLogsAreCapturedAndTagged() async throws {
        var hooks = HookRegistry()
        hooks.afterSave("Posts") { request in request.logger.info("saw \(request.object["n"]?.intValue ?? 0)") }
        let harness = try HookHarness(registry: hooks)
        try await harness.create("Posts", ["n": 7])
        #expect(harness.logs.messages(from: .afterSave, "Posts") == ["saw 7"])
        #expect(harness.logs.all.first { $0.message == "saw 7" }?.metadata["app"] == "test")
    }

    @Test func anAfterHookOwedFromBeforeACrashIsClaimedFromTheQueueAndRunsOnce() async throws {
        let events = Mutex<[String]>([])
        var hooks = HookRegistry()
        hooks.afterSave("Posts") { request in events.withLock { $0.append(request.eventId ?? "none") } }
        let harness = try HookHarness(registry: hooks)
        // A write committed with its after hook queued, held by no one: as its process left it when killed.
        let object = ParseObject(className: "Posts", objectId: "abcdefghij", createdAt: harness.clock.now, updatedAt: harness.clock.now, fields: ["n": 1])
        let event = OutboxEvent(kind: .afterSave, object: object, original: nil, caller: Caller(isMaster: true, requestId: "r1"))
        try await harness.runtime.context.stores.objects.insert(object, outbox: event)
        try await harness.waitForInvocations(.afterSave, "Posts")
        try await harness.waitUntilNoAfterHookIsQueued()
        #expect(events.withLock { $0 } == [event.id])
    }

    @Test func anAfterResponseHookRunningPastLeasesIsNotClaimedAgainWhileItRuns() async throws {
        let released = Mutex(false)
        var hooks = HookRegistry()
        hooks.afterSave("Posts", timeLimit: .seconds(120), runs: .afterResponse) { _ in
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        }
        let harness = try HookHarness(registry: hooks)
        let save = Task { try await harness.create("Posts", [:]) }
        try await harness.waitForInvocations(.afterSave, "Posts")
        // Three leases' worth of time: the work loop renews the row it runs, so no claim takes it.
        for _ in 0..<6 {
            harness.clock.advance(by: .seconds(5))
            try await Task.sleep(for: .milliseconds(20))
        }
        released.withLock { $0 = true }
        _ = try await save.value
        try await harness.waitUntilNoAfterHookIsQueued()
        #expect(harness.counts(.afterSave, "Posts").invocations == 1)
    }

    @Test func storeCallsFromHooksFireTheirOwnHooksUpToABound() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Chain") { request in
            let depth = request.object["depth"]?.intValue ?? 0
            _ = try await request.store.save(ParseObject(className: "Chain", fields: ["depth": .number(Double(depth + 1))]))
        }
        let harness = try HookHarness(registry: hooks)
        let error = try await #require(throws: ParseError.self) { try await harness.create("Chain", ["depth": 0]) }
        #expect(error.code == 141)
        #expect(error.message.contains("nested"))
        #expect(try await harness.find(ParseQuery("Chain")).isEmpty)
    }

    @Test func typedHooksDecodeAndWriteBackTheModel() async throws {
        struct Message: Codable, Sendable { var text: String; var length: Int? }
        var hooks = HookRegistry()
        hooks.beforeSave("Messages", as: Message.self) { message, _ in message.length = message.text.count }
        hooks.function("double", input: [String: Int].self) { input, _ in (input["n"] ?? 0) * 2 }
        let harness = try HookHarness(registry: hooks)
        #expect(try await harness.create("Messages", ["text": "hello"])["length"] == 5)
        let error = try await #require(throws: ParseError.self) { try await harness.create("Messages", ["text": 5]) }
        #expect(error.code == 142)
        #expect(error.message.contains("text"))
        #expect(try await harness.call("double", ["n": 21]) == 42)
    }

    @Test func timestampsComeFromTheManualClock() async throws {
        let harness = try HookHarness(registry: HookRegistry())
        let first = try await harness.create("Posts", [:])
        harness.clock.advance(by: .seconds(90))
        let updated = try await harness.update("Posts", id: try #require(first.objectId), ["x": 1])
        #expect(first.createdAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(updated.updatedAt == Date(timeIntervalSince1970: 1_767_225_690))
    }
}

extension HookHarness {
    /// Waits (in real time, up to 10 s) until the queue holds no after hook: each has run and its row is gone.
    func waitUntilNoAfterHookIsQueued() async throws {
        let giveUp = ContinuousClock.now + .seconds(10)
        while try await runtime.context.stores.work.nextDue([.afterHook]) != nil {
            guard ContinuousClock.now < giveUp else { throw ParseError.failed("after hooks still queued after 10 s") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
