import Cloudlet
import CloudletTesting
import Foundation
import Testing

/// Waiting for code under test to park on the manual clock.
@Suite struct ManualClockTests {
    @Test func parkedReturnsOnceEnoughAlarmsWaitCountingNeitherDueNorFiredOnes() async {
        let clock = ManualClock()
        let parked = Task { await clock.parked(2) }
        _ = clock.schedule(at: clock.now.addingTimeInterval(1)) {}
        _ = clock.schedule(at: clock.now.addingTimeInterval(-1)) {}
        clock.advance(by: .seconds(1))
        #expect(clock.pendingAlarms == 0)
        _ = clock.schedule(at: clock.now.addingTimeInterval(1)) {}
        _ = clock.schedule(at: clock.now.addingTimeInterval(2)) {}
        await parked.value
        #expect(clock.pendingAlarms == 2)
        await clock.parked(1)
    }

    @Test func pendingDeadlinesListTheWaitingAlarmsEarliestFirst() {
        let clock = ManualClock()
        let later = clock.schedule(at: clock.now.addingTimeInterval(30)) {}
        _ = clock.schedule(at: clock.now.addingTimeInterval(10)) {}
        #expect(clock.pendingDeadlines == [clock.now.addingTimeInterval(10), clock.now.addingTimeInterval(30)])
        later.cancel()
        clock.advance(by: .seconds(10))
        #expect(clock.pendingDeadlines.isEmpty)
    }
}
