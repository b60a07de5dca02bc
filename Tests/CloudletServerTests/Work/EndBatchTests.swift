import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime

/// The ends of done runs wait a moment to share one write; any other end is written at once.
@Suite struct EndBatchTests {
    let start = ContinuousClock.now

    private func ended(_ id: String, _ outcome: WorkOutcome = .done) -> EndedWork {
        EndedWork(
            work: ClaimedWork(id: id, kind: .afterHook, payload: .null, attempts: 1, owner: "loop", leasedUntil: Date(timeIntervalSince1970: 10)),
            outcome: outcome)
    }

    @Test func doneEndsWaitForTheWindowThenGoTogether() {
        var ends = EndBatch()
        let first = ends.add([ended("a")], now: start)
        #expect(first.write.isEmpty && first.opened, "the first end opens a window")
        let second = ends.add([ended("b")], now: start + .milliseconds(5))
        #expect(second.write.isEmpty && !second.opened, "within the window: held, no second window")
        let nothingNew = ends.add([], now: start + .milliseconds(10))
        #expect(nothingNew.write.isEmpty)
        let due = ends.add([], now: start + EndBatch.window)
        #expect(due.write.map(\.work.id) == ["a", "b"])
        #expect(ends.add([], now: start + .seconds(1)).write.isEmpty, "written once")
        #expect(ends.add([ended("c")], now: start + .seconds(1)).opened, "a new end opens a new window")
    }

    @Test(arguments: [WorkOutcome.retry(at: Date(timeIntervalSince1970: 20)), .released])
    func anEndThatMakesItsRowDueAgainIsWrittenAtOnceWithThoseHeld(_ outcome: WorkOutcome) {
        var ends = EndBatch()
        _ = ends.add([ended("a")], now: start)
        let now = ends.add([ended("b", outcome)], now: start + .milliseconds(1))
        #expect(now.write.map(\.work.id) == ["a", "b"])
        #expect(!now.opened)
    }

    @Test func aFullBatchIsWrittenAtOnce() {
        var ends = EndBatch()
        let many = (0..<EndBatch.maximum).map { ended("r\($0)") }
        #expect(ends.add(many, now: start).write.count == EndBatch.maximum)
    }

    @Test func takeAllEmptiesIt() {
        var ends = EndBatch()
        _ = ends.add([ended("a")], now: start)
        #expect(ends.takeAll().map(\.work.id) == ["a"])
        #expect(ends.takeAll().isEmpty)
    }
}
