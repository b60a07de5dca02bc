import Cloudlet
import Foundation
import CloudletTesting
import Synchronization
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The deadline of a hook call to a worker: it ends whichever wait of the call is under way.
@Suite("Call deadline")
struct CallDeadlineTests {
    @Test func theDeadlineEndsTheWaitUnderWayAndNoWaitThatHasLeft() {
        let clock = ManualClock()
        let deadline = CallDeadline(until: clock.now.addingTimeInterval(1), clock: clock)
        let ended = Mutex<[String]>([])
        deadline.enter { ended.withLock { $0.append("left") } }
        deadline.leave()
        deadline.enter { ended.withLock { $0.append("waiting") } }
        clock.advance(by: .milliseconds(999))
        #expect(ended.withLock { $0 }.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(ended.withLock { $0 } == ["waiting"])
        deadline.enter { ended.withLock { $0.append("after") } }
        #expect(ended.withLock { $0 } == ["waiting", "after"], "a wait that starts after the deadline ends at once")
    }

    @Test func anEndedCallLeavesNoAlarm() {
        let clock = ManualClock()
        let deadline = CallDeadline(until: clock.now.addingTimeInterval(1), clock: clock)
        #expect(clock.pendingAlarms == 1)
        deadline.end()
        #expect(clock.pendingAlarms == 0)
        let passed = CallDeadline(until: clock.now, clock: clock)
        #expect(clock.pendingAlarms == 0)
        let ended = Mutex(false)
        passed.enter { ended.withLock { $0 = true } }
        #expect(ended.withLock { $0 })
    }

    @Test func aCallWaitingForABulkheadSlotLeavesTheQueueAtItsDeadline() async throws {
        let clock = ManualClock()
        let bulkhead = HookBulkhead(maximumRunning: 1, maximumWaiting: 4)
        let gate = HookBulkheadTests.Gate()
        let running = Task { try await bulkhead.run { await gate.wait() } }
        while bulkhead.load.running < 1 { await Task.yield() }
        let deadline = CallDeadline(until: clock.now.addingTimeInterval(3), clock: clock)
        let waiting = Task { try await CallDeadline.$current.withValue(deadline) { try await bulkhead.run { 7 } } }
        while bulkhead.load.waiting < 1 { await Task.yield() }
        clock.advance(by: .seconds(3))
        // Were the wait deaf to the deadline, it would wait for ever: cancelled after 10 s instead.
        let watchdog = Task { try await Task.sleep(for: .seconds(10)); waiting.cancel() }
        defer { watchdog.cancel() }
        await #expect(throws: DeadlineRace.DeadlineExceeded.self) { try await waiting.value }
        #expect(bulkhead.load.waiting == 0)
        gate.open()
        try await running.value
        #expect(bulkhead.load.running == 0, "the call that timed out never took the slot")
    }
}
