import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

@Suite struct CircuitBreakerTests {
    private let now = Date(timeIntervalSince1970: 1_000)

    private func admit(_ breaker: inout CircuitBreaker, at time: Date) -> Bool {
        breaker.admit(at: time)
    }

    @Test func theCircuitOpensAfterTheThresholdOfCrashesInARow() {
        var breaker = CircuitBreaker(threshold: 3, openDuration: .seconds(10))
        breaker.recordCrash(at: now)
        breaker.recordCrash(at: now)
        #expect(admit(&breaker, at: now) == true)
        breaker.recordCrash(at: now)
        #expect(breaker.state == .open(until: now + 10))
        #expect(admit(&breaker, at: now + 9) == false)
    }

    @Test func aSuccessBetweenCrashesKeepsItClosed() {
        var breaker = CircuitBreaker(threshold: 2, openDuration: .seconds(10))
        breaker.recordCrash(at: now)
        breaker.recordSuccess()
        breaker.recordCrash(at: now)
        #expect(breaker.state == .closed(crashes: 1))
    }

    @Test func afterTheOpenPeriodOneProbeGoesThroughAndDecides() {
        var breaker = CircuitBreaker(threshold: 1, openDuration: .seconds(10))
        breaker.recordCrash(at: now)
        #expect(admit(&breaker, at: now + 10) == true)
        #expect(breaker.isHalfOpen)
        #expect(admit(&breaker, at: now + 11) == false)
        breaker.recordCrash(at: now + 11)
        #expect(breaker.state == .open(until: now + 21))
        #expect(admit(&breaker, at: now + 21) == true)
        breaker.recordSuccess()
        #expect(admit(&breaker, at: now + 22) == true)
        #expect(breaker.state == .closed(crashes: 0))
    }

    @Test func aProbeThatNeverAnswersIsReplacedAfterAnotherOpenPeriod() {
        var breaker = CircuitBreaker(threshold: 1, openDuration: .seconds(10))
        breaker.recordCrash(at: now)
        #expect(admit(&breaker, at: now + 10) == true)
        #expect(admit(&breaker, at: now + 19) == false)
        #expect(admit(&breaker, at: now + 20) == true)
    }
}

@Suite struct RestartBackoffTests {
    @Test func restartsAtOnceThenDoublesUpToTheMaximumAndResets() {
        var backoff = RestartBackoff(base: .milliseconds(100), maximum: .milliseconds(500))
        let delays = (0..<6).map { _ in backoff.nextDelay() }
        #expect(delays == [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
        backoff.reset()
        #expect(backoff.nextDelay() == .zero)
    }

    /// One crash must not leave an app without a worker while the host's cores are busy: its
    /// replacement starts at full share. Only workers that keep ending, crashed or killed, put the
    /// next one on probation in the idle CPU group; an answered call ends the streak.
    @Test func onlyWorkersThatEndTwiceInARowPutTheNextOneOnProbation() {
        var backoff = RestartBackoff(base: .milliseconds(100), maximum: .milliseconds(500))
        #expect(!backoff.startsNextWorkerOnProbation, "a slot's first worker")
        _ = backoff.nextDelay()
        #expect(!backoff.startsNextWorkerOnProbation, "the replacement of a worker that crashed once")
        backoff.workerWasKilled()
        #expect(backoff.startsNextWorkerOnProbation, "the replacement's replacement")
        backoff.reset()
        backoff.workerWasKilled()
        #expect(!backoff.startsNextWorkerOnProbation, "a worker that answered ended the streak")
        _ = backoff.nextDelay()
        #expect(backoff.startsNextWorkerOnProbation)
    }

    @Test func aPoolRestartsABurstAtOnceThenAtItsPaceWhateverEndedItsWorkers() {
        let now = Date(timeIntervalSince1970: 1_000)
        var budget = RestartBudget(burst: 3, interval: .milliseconds(250))
        let starts = (0..<5).map { _ in budget.nextStart(wantedAt: now).timeIntervalSince(now) }
        #expect(starts == [0, 0, 0, 0.25, 0.5])
        // Once the pace has caught up, the burst is there again.
        let later = now.addingTimeInterval(10)
        #expect((0..<3).map { _ in budget.nextStart(wantedAt: later) } == [later, later, later])
    }
}
