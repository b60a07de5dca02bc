import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The worker lifecycle, driven by hand: no process, no socket, no real time.
@Suite struct WorkerLifecycleTests {
    private let start = Date(timeIntervalSince1970: 1_000)
    private let limits = WorkerLifecycle.Limits(
        startupTimeout: .seconds(10), killGrace: .milliseconds(250), healthCheckInterval: .seconds(5),
        healthCheckTimeout: .seconds(2), maximumInFlight: 2)

    private func ready() -> WorkerLifecycle {
        var lifecycle = WorkerLifecycle(spawnedAt: start, limits: limits)
        lifecycle.becameReady(at: start)
        return lifecycle
    }

    @Test func theOldestCallInFlightSetsWhenTheNextSupervisionTickComes() {
        var lifecycle = ready()
        #expect(lifecycle.oldestCallSentAt == nil)
        lifecycle.sent(1, at: start + 0.010, deadline: start + 3)
        lifecycle.sent(2, at: start + 0.004, deadline: start + 3)
        #expect(lifecycle.oldestCallSentAt == start + 0.004)
        lifecycle.answered(2)
        #expect(lifecycle.oldestCallSentAt == start + 0.010)
        // A call that turns 25 ms old before the next regular tick brings that tick forward to then.
        #expect(WorkerPool.wait(from: start, untilTheEarliestOf: []) == WorkerPool.supervisionInterval)
        #expect(WorkerPool.wait(from: start, untilTheEarliestOf: [start + 0.035, start + 0.020]) == .milliseconds(20))
        #expect(WorkerPool.wait(from: start, untilTheEarliestOf: [start + 0.080]) == WorkerPool.supervisionInterval)
        #expect(WorkerPool.wait(from: start, untilTheEarliestOf: [start - 1]) == .milliseconds(1))
    }

    @Test func aWorkerThatNeverSaysHelloIsKilledAfterTheStartupTimeout() {
        let lifecycle = WorkerLifecycle(spawnedAt: start, limits: limits)
        #expect(!lifecycle.canAccept(at: start))
        #expect(lifecycle.verdict(at: start + 9) == .healthy)
        #expect(lifecycle.verdict(at: start + 11) == .kill("did not start in time"))
    }

    @Test func aReadyWorkerTakesCallsUpToItsLimitAndIsBusyWhileItRunsThem() {
        var lifecycle = ready()
        #expect(lifecycle.canAccept(at: start) && !lifecycle.isBusy)
        lifecycle.sent(1, at: start, deadline: start + 3)
        #expect(lifecycle.isBusy && lifecycle.canAccept(at: start))
        lifecycle.sent(2, at: start, deadline: start + 3)
        #expect(!lifecycle.canAccept(at: start))
        lifecycle.answered(1)
        #expect(lifecycle.canAccept(at: start))
        lifecycle.answered(2)
        #expect(!lifecycle.isBusy)
    }

    @Test func aCallPastItsDeadlineAndTheGraceGetsTheWorkerKilled() {
        var lifecycle = ready()
        lifecycle.sent(1, at: start, deadline: start + 3)
        #expect(lifecycle.verdict(at: start + 3.2) == .healthy)
        #expect(lifecycle.verdict(at: start + 3.3) == .kill("a hook ran past its deadline"))
        #expect(!lifecycle.canAccept(at: start + 3.1), "a worker with an overdue call takes no more")
        lifecycle.killing(because: "overdue")
        #expect(lifecycle.state == .killed(reason: "overdue"))
        #expect(!lifecycle.canAccept(at: start))
        let ending = lifecycle.exited()
        #expect(ending.unanswered == [1] && ending.wasKilled)
        #expect(lifecycle.state == .exited && lifecycle.inFlight.isEmpty)
    }

    @Test func aWorkerThatExitsOnItsOwnLeavesItsCallsUnansweredAndCountsAsACrash() {
        var lifecycle = ready()
        lifecycle.sent(4, at: start, deadline: start + 3)
        lifecycle.sent(2, at: start, deadline: start + 3)
        let ending = lifecycle.exited()
        #expect(ending.unanswered == [2, 4])
        #expect(!ending.wasKilled)
    }

    @Test func healthChecksArePeriodicAndAMissedOneKills() {
        var lifecycle = ready()
        #expect(lifecycle.verdict(at: start + 4) == .healthy)
        #expect(lifecycle.verdict(at: start + 5) == .ping)
        lifecycle.pinged(at: start + 5)
        #expect(lifecycle.verdict(at: start + 6) == .healthy)
        lifecycle.ponged(at: start + 6)
        #expect(lifecycle.verdict(at: start + 10) == .healthy)
        #expect(lifecycle.verdict(at: start + 11) == .ping)
        lifecycle.pinged(at: start + 11)
        #expect(lifecycle.verdict(at: start + 13.5) == .kill("missed a health check"))
    }

    @Test func aDrainingWorkerTakesNoNewCallsFinishesItsOwnAndIsThenEnded() {
        var lifecycle = ready()
        lifecycle.sent(1, at: start, deadline: start + 3)
        lifecycle.drain()
        #expect(lifecycle.state == .draining)
        #expect(!lifecycle.canAccept(at: start))
        #expect(lifecycle.verdict(at: start + 1) == .healthy)
        lifecycle.answered(1)
        #expect(lifecycle.verdict(at: start + 1) == .kill("drained"))
    }

    @Test func onlyADrainedWorkerOrAStoppedPoolsIsEndedOnPurpose() {
        for (reason, planned) in [
            (WorkerLifecycle.drained, true), (WorkerLifecycle.poolStopped, true), ("missed a health check", false),
            ("a hook ran past its deadline", false),
        ] {
            var lifecycle = ready()
            #expect(!lifecycle.isStopping)
            lifecycle.killing(because: reason)
            #expect(lifecycle.isStopping == planned, "\(reason)")
        }
    }

    @Test func aDrainingWorkerStillGetsKilledWhenACallRunsPastItsDeadline() {
        var lifecycle = ready()
        lifecycle.sent(1, at: start, deadline: start + 3)
        lifecycle.drain()
        #expect(lifecycle.verdict(at: start + 4) == .kill("a hook ran past its deadline"))
    }

    @Test func aCallRunAloneNeedsAnIdleWorkerAndKeepsOthersOffIt() {
        var lifecycle = ready()
        lifecycle.sent(1, at: start, deadline: start + 3)
        #expect(!lifecycle.canAccept(at: start, exclusive: true), "a busy worker cannot run a call alone")
        lifecycle.answered(1)
        #expect(lifecycle.canAccept(at: start, exclusive: true))
        lifecycle.sent(2, at: start, deadline: start + 3, exclusive: true)
        #expect(!lifecycle.canAccept(at: start), "no other call joins a call that runs alone")
        lifecycle.answered(2)
        #expect(lifecycle.canAccept(at: start))
    }

    @Test func aWorkerReplacingOneThatEndedIsOnProbationUntilItsHello() {
        var replacement = WorkerLifecycle(spawnedAt: start, limits: limits, replacing: true)
        #expect(replacement.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start))
        replacement.becameReady(at: start + 0.2)
        #expect(!replacement.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + 0.2))
        let starved = WorkerLifecycle(spawnedAt: start, limits: limits, replacing: true)
        #expect(
            !starved.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + WorkerLifecycle.longestProbation.seconds),
            "a busy host's cores must not keep the app without a worker")
        let first = WorkerLifecycle(spawnedAt: start, limits: limits)
        #expect(!first.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start), "a pool's first workers start at full share")
    }

    @Test func aCallRunningLongMarksItsWorkerUntilItIsAnswered() {
        var lifecycle = ready()
        lifecycle.sent(1, at: start, deadline: start + 3)
        lifecycle.sent(2, at: start + 0.5, deadline: start + 3)
        #expect(!lifecycle.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + 0.05))
        #expect(lifecycle.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + 0.1))
        lifecycle.answered(1)
        #expect(!lifecycle.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + 0.55), "the other call is young")
        lifecycle.answered(2)
        #expect(!lifecycle.belongsInTheIdleGroup(longCall: .milliseconds(100), at: start + 10))
    }
}
