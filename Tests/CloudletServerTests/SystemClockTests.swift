import Cloudlet
import CloudletRuntime
import Foundation
import Synchronization
import Testing

/// The system clock's alarms: each fires once, at or after its deadline, whatever order they are
/// armed in; a cancelled one never does.
@Suite("System clock")
struct SystemClockTests {
    /// What fired, by name, and whether it fired before its deadline.
    private final class Firings: Sendable {
        private let fired = Mutex<[(name: String, early: Bool)]>([])

        func alarm(_ name: String, at deadline: Date, on clock: SystemClock) -> any ClockAlarm {
            clock.schedule(at: deadline) { self.fired.withLock { $0.append((name, Date() < deadline)) } }
        }

        var names: [String] { fired.withLock { $0.map(\.name) } }
        var anyEarly: Bool { fired.withLock { $0.contains(where: \.early) } }
    }

    @Test func alarmsFireInDeadlineOrderWhenOneDueSoonerIsArmedLater() async throws {
        let clock = SystemClock()
        let firings = Firings()
        let start = Date()
        _ = firings.alarm("never", at: .distantFuture, on: clock)
        _ = firings.alarm("last", at: start.addingTimeInterval(0.4), on: clock)
        _ = firings.alarm("first", at: start.addingTimeInterval(0.1), on: clock)
        _ = firings.alarm("second", at: start.addingTimeInterval(0.25), on: clock)
        try await Support.eventually { firings.names.count == 3 }
        #expect(firings.names == ["first", "second", "last"])
        #expect(!firings.anyEarly, "no alarm fires before its deadline")

        _ = firings.alarm("again", at: Date().addingTimeInterval(0.05), on: clock)
        try await Support.eventually { firings.names.count == 4 }
        #expect(firings.names.last == "again", "an alarm armed after every other has fired still fires")
    }

    @Test func aCancelledAlarmNeverFiresAndOnePastItsDeadlineFiresAtOnce() async throws {
        let clock = SystemClock()
        let firings = Firings()
        let start = Date()
        firings.alarm("cancelled", at: start.addingTimeInterval(0.05), on: clock).cancel()
        _ = firings.alarm("kept", at: start.addingTimeInterval(0.15), on: clock)
        _ = firings.alarm("past", at: start.addingTimeInterval(-1), on: clock)
        try await Support.eventually { firings.names.count == 2 }
        #expect(firings.names == ["past", "kept"])
        try await Task.sleep(for: .milliseconds(100))
        #expect(firings.names == ["past", "kept"], "the cancelled alarm did not fire")
    }

    @Test func manyAlarmsArmedAtOnceEachFireOnce() async throws {
        let clock = SystemClock()
        let firings = Firings()
        let start = Date()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    // The ones cancelled are due later than the others, and cancelled well before.
                    let delay = Double(index % 20) / 100 + (index % 2 == 1 ? 0.3 : 0)
                    let alarm = firings.alarm("\(index)", at: start.addingTimeInterval(delay), on: clock)
                    if index % 2 == 1 { alarm.cancel() }
                }
            }
        }
        try await Support.eventually { firings.names.count == 100 }
        try await Task.sleep(for: .seconds(max(0, start.addingTimeInterval(0.6).timeIntervalSinceNow)))
        #expect(Set(firings.names) == Set(stride(from: 0, to: 200, by: 2).map { "\($0)" }))
        #expect(firings.names.count == 100, "each fired once")
        #expect(!firings.anyEarly)
    }
}
