import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

/// The per-app cap on hook invocations running and waiting.
@Suite("Hook bulkhead")
struct HookBulkheadTests {
    /// A gate hooks wait at until the test opens it.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream() }
        func wait() async { for await _ in stream { break } }
        func open() { continuation.finish() }
    }

    @Test func callsPastTheQueueAreRefusedAndCancelledWaitersLeaveIt() async throws {
        let bulkhead = HookBulkhead(maximumRunning: 2, maximumWaiting: 1)
        let gate = Gate()
        let running = (0..<2).map { _ in Task { try await bulkhead.run { await gate.wait() } } }
        while bulkhead.load.running < 2 { await Task.yield() }
        let waiting = Task { try await bulkhead.run { 7 } }
        while bulkhead.load.waiting < 1 { await Task.yield() }
        let refused = await #expect(throws: ParseError.self) { try await bulkhead.run { 0 } }
        #expect(refused?.code == 155 && refused?.httpStatus == 503)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(bulkhead.load.waiting == 0)
        let next = Task { try await bulkhead.run { 8 } }
        while bulkhead.load.waiting < 1 { await Task.yield() }
        gate.open()
        for task in running { try await task.value }
        #expect(try await next.value == 8)
        #expect(bulkhead.load.running == 0)
    }

    /// Over the router: one app's slow hook fills its slot, a second waits in its queue, and a
    /// third is refused at once, while the other app's hooks run.
    @Test func oneAppsSlowHooksDoNotTakeAnotherAppsSlots() async throws {
        let gate = Gate()
        let arrived = Gate()
        var hooks = HookRegistry()
        hooks.function("slow") { _ in
            arrived.open()
            await gate.wait()
            return .string("done")
        }
        hooks.function("fast") { _ in .string("ok") }
        var policy = RateLimitPolicy.off
        policy.maximumConcurrentHooks = 1
        policy.maximumQueuedHooks = 1
        try await RateLimitRouteTests.withApps(policy, hooks: hooks) { a, b in
            async let running = a.post("/functions/slow")
            await arrived.wait()
            // Of two more calls, one takes the queue's place and the other is refused: the refusal
            // is the first to answer, since the queued one waits for the gate.
            try await withThrowingTaskGroup(of: ParseTestClient.Reply.self) { group in
                for _ in 0..<2 { group.addTask { try await a.post("/functions/slow") } }
                let refused = try await group.next()
                let otherApp = try await b.post("/functions/fast").status
                // The held calls are let go before anything is required, so a failure ends the test instead of hanging it.
                gate.open()
                Support.expectError(try #require(refused), status: 503, code: 155)
                #expect(otherApp == 200)
                #expect(try await group.next()?.status == 200)
            }
            #expect(try await running.status == 200)
            #expect(try await a.post("/functions/fast").status == 200)
        }
    }

    @Test func nestedHooksRunInTheirCallersSlot() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Log") { request in request.object["checked"] = true }
        hooks.function("write") { request in
            let saved = try await request.store.save(ParseObject(className: "Log", json: ["n": 1]))
            return saved["checked"] ?? .null
        }
        var policy = RateLimitPolicy.off
        policy.maximumConcurrentHooks = 1
        policy.maximumQueuedHooks = 0
        try await RateLimitRouteTests.withApps(policy, hooks: hooks) { a, _ in
            let reply = try await a.post("/functions/write")
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["result"] == true)
        }
    }
}
