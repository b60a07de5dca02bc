import Cloudlet
import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// Whom a worker's end is laid on, and which calls run again: no process, no socket.
@Suite struct WorkerLossTests {
    @Test func aWorkerThatCrashedUnderOneCallWasCrashedByIt() {
        let loss = WorkerLoss(wasKilled: false, callsInFlight: 1)
        #expect(loss.verdict(attempt: 0, deadlinePassed: false) == .crashed)
        #expect(loss.verdict(attempt: 1, deadlinePassed: false) == .crashed, "a retry runs alone: its crash is its own")
    }

    @Test func callsBesideACrashAreSuspectsRetriedOnceAloneOrLostWithoutBlame() {
        let loss = WorkerLoss(wasKilled: false, callsInFlight: 3)
        #expect(loss.verdict(attempt: 0, deadlinePassed: false) == .retryAlone)
        #expect(loss.verdict(attempt: 0, deadlinePassed: true) == .lost)
        #expect(loss.verdict(attempt: 1, deadlinePassed: false) == .lost)
    }

    @Test func aKilledWorkersOverdueCallOverranAndItsOtherCallsAreRetried() {
        let loss = WorkerLoss(wasKilled: true, callsInFlight: 2)
        #expect(loss.verdict(attempt: 0, deadlinePassed: true) == .overran)
        #expect(loss.verdict(attempt: 0, deadlinePassed: false) == .retryAlone)
        #expect(loss.verdict(attempt: 1, deadlinePassed: false) == .lost)
        #expect(WorkerLoss(wasKilled: true, callsInFlight: 1).verdict(attempt: 0, deadlinePassed: false) == .retryAlone)
    }

    @Test func onlyAWorkersOwnEndLeavesAnAfterHookOwed() {
        #expect(ParseError.workerLost.leftHookUnfinished)
        #expect(ParseError.hookCrashed().leftHookUnfinished)
        #expect(ParseError.unavailable("circuit open").leftHookUnfinished)
        #expect(!ParseError.failed("the hook threw").leftHookUnfinished)
        #expect(!ParseError(code: 124, message: "timed out", httpStatus: 504).leftHookUnfinished)
        #expect(!ParseError.resultTooLarge.leftHookUnfinished)
    }
}
