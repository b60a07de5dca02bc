import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Synchronization
import Testing

/// Time limits on the system clock, over the real router: the client hears 504/124 at the
/// deadline even from a hook that never returns.
@Suite("Time limits on the system clock")
struct TimeoutTests {
    /// A hook body that never returns and never looks at cancellation.
    @Sendable static func hang() async {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }

    @Test func aHangingFunctionAnswers504WithCode124() async throws {
        var hooks = HookRegistry()
        hooks.function("stuck", timeLimit: .milliseconds(200)) { _ in await Self.hang(); return nil }
        try await ParseTestClient.withRouter(registry: hooks) { client in
            let started = ContinuousClock.now
            let reply = try await client.post("/functions/stuck")
            #expect(reply.status == 504)
            #expect(reply["code"] == 124)
            #expect(ContinuousClock.now - started >= .milliseconds(200))
        }
    }

    @Test func aHangingBeforeSaveWritesNothing() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Stuck", timeLimit: .milliseconds(100)) { _ in await Self.hang() }
        try await ParseTestClient.withRouter(registry: hooks) { client in
            let reply = try await client.post("/classes/Stuck", ["n": 1])
            #expect(reply.status == 504)
            #expect(reply["code"] == 124)
            #expect(try await Support.masterCount(client, "Stuck") == 0)
        }
    }

    @Test func systemClockAlarmsFireOnceAndCancelledOnesNever() async throws {
        let clock = SystemClock()
        let fired = Mutex<[String]>([])
        _ = clock.schedule(at: clock.now.addingTimeInterval(0.05)) { fired.withLock { $0.append("due") } }
        let cancelled = clock.schedule(at: clock.now.addingTimeInterval(0.05)) { fired.withLock { $0.append("cancelled") } }
        cancelled.cancel()
        _ = clock.schedule(at: clock.now.addingTimeInterval(-1)) { fired.withLock { $0.append("past") } }
        for _ in 0..<200 where fired.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(fired.withLock { $0.sorted() } == ["due", "past"])
    }
}
