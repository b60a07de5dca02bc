import CloudletServer
import CloudletTesting
import Foundation
import Testing

/// The wake-up the server's background loops sleep on instead of polling.
@Suite struct WakeSignalTests {
    @Test func aSignalBeforeTheWaitIsKeptAndSeveralWakeOnce() async throws {
        let signal = WakeSignal()
        signal.signal()
        signal.signal()
        await signal.wait()
        let second = Task { await signal.wait() }
        try await Task.sleep(for: .milliseconds(100))
        signal.signal()
        await second.value
    }

    @Test func aWaitEndsWhenItsClockReachesItsDate() async throws {
        let clock = ManualClock(start: Date())
        let signal = WakeSignal()
        let date = clock.now.addingTimeInterval(60)
        let waiting = Task { await signal.wait(until: date, on: clock) }
        await clock.parked()
        clock.advance(by: .seconds(59))
        #expect(clock.pendingAlarms == 1, "still waiting a second before its date")
        clock.advance(by: .seconds(1))
        await waiting.value
        #expect(clock.pendingAlarms == 0)
    }

    @Test func aWaitEndsWhenItsTaskIsCancelled() async {
        let waiting = Task { await WakeSignal().wait() }
        waiting.cancel()
        await waiting.value
    }
}
