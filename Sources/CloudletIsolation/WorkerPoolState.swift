import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation

/// Everything a ``WorkerPool`` keeps under its one lock: the workers by slot, the invocations in
/// flight, the callers waiting for a free worker, and a circuit breaker per hook.
struct WorkerPoolState {
    /// A live worker in a slot.
    struct Worker {
        let process: WorkerProcess
        var lifecycle: WorkerLifecycle
    }

    /// How an invocation on a worker ended.
    enum Ending: Sendable {
        /// The worker answered.
        case answered(WireOutcome)
        /// The worker ended first.
        case lost(WorkerLoss)
        /// The answer could not be taken (it was over the frame bound).
        case refused(ParseError)
        /// The call's deadline passed first; the invocation stays on its worker until it ends.
        case timedOut
    }

    /// An invocation sent (or about to be sent) to `process`.
    struct Invocation {
        let process: WorkerProcess
        let context: HookContext
        var continuation: CheckedContinuation<Ending, Never>?
        /// Set when the invocation ended before its caller started waiting.
        var early: Ending?
        /// Set when its caller stopped waiting at the call's deadline: nobody waits for its ending.
        var abandoned = false
    }

    /// A caller waiting for a worker with a free slot (or, for a retry, an idle worker to run alone on).
    struct Waiter {
        let id: UInt64
        let context: HookContext
        let exclusive: Bool
        let continuation: CheckedContinuation<WorkerProcess, any Error>
    }

    /// The worker serving each slot.
    var workers: [Int: Worker] = [:]
    /// Workers replaced by a reload, by pid: they finish their calls, take no new ones, and are then ended.
    var draining: [Int32: Worker] = [:]
    /// Workers moved to their app's idle CPU group for a long call, by pid.
    var demoted: Set<Int32> = []
    var restarts: [Int: Date] = [:]
    var backoffs: [RestartBackoff]
    var restartBudget: RestartBudget
    var invocations: [UInt64: Invocation] = [:]
    var waiters: [Waiter] = []
    var breakers: [String: CircuitBreaker] = [:]
    /// The hooks the workers serve, by ``hookKey(_:_:)``, with their limits; nil until the first hello.
    var hooks: [String: HookRegistry.Summary]?
    /// Set by a reload: the next hello's hook list replaces ``hooks`` (the executable may have changed).
    var hooksNeedRefresh = false
    var nextInvocationId: UInt64 = 1
    var isShuttingDown = false
    /// Whether the supervisor rests, with nothing to watch (``isQuiet``): it then ticks once a
    /// ``WorkerPool/restingInterval`` until ``wakeSupervisor()`` is called.
    var supervisorRests = false
    /// What a resting supervisor sleeps on (``WorkerPool/supervisorWake``).
    let supervisorWake: WakeSignal

    init(slots: Int, backoff: RestartBackoff, restartBudget: RestartBudget, supervisorWake: WakeSignal) {
        backoffs = Array(repeating: backoff, count: slots)
        self.restartBudget = restartBudget
        self.supervisorWake = supervisorWake
    }

    static func hookKey(_ kind: HookKind, _ name: String) -> String { "\(kind.rawValue) \(name)" }

    /// Gives invocation `id` a place on the least busy worker that has one (an idle one, alone, if
    /// `exclusive`); nil if none has.
    mutating func reserve(_ id: UInt64, context: HookContext, exclusive: Bool = false) -> WorkerProcess? {
        let now = context.clock.now
        var least: (slot: Int, calls: Int)?
        for (slot, worker) in workers where worker.lifecycle.canAccept(at: now, exclusive: exclusive) {
            let calls = worker.lifecycle.inFlight.count
            if least.map({ calls < $0.calls }) ?? true { least = (slot, calls) }
        }
        guard let slot = least?.slot, let process = workers[slot]?.process else { return nil }
        workers[slot]?.lifecycle.sent(id, at: now, deadline: context.deadline, exclusive: exclusive)
        invocations[id] = Invocation(process: process, context: context)
        wakeSupervisor()
        return process
    }

    /// Whether the supervisor has nothing to watch: every slot has a worker, ready and idle with no
    /// health check unanswered; none drains, no slot waits for a restart and no caller for a worker.
    var isQuiet: Bool {
        !isShuttingDown && draining.isEmpty && restarts.isEmpty && waiters.isEmpty && workers.count == backoffs.count
            && workers.values.allSatisfy(\.lifecycle.isIdle)
    }

    /// Something the supervisor watches has begun (a call, a restart): a resting supervisor ticks at once.
    mutating func wakeSupervisor() {
        guard supervisorRests else { return }
        supervisorRests = false
        supervisorWake.signal()
    }

    /// Applies `change` to the lifecycle of `process`, whether it serves a slot or is draining.
    mutating func updateLifecycle(of process: WorkerProcess, _ change: (inout WorkerLifecycle) -> Void) {
        if workers[process.slot]?.process === process {
            change(&workers[process.slot]!.lifecycle)
        } else if draining[process.pid] != nil {
            change(&draining[process.pid]!.lifecycle)
        }
    }

    /// Hands free worker slots to waiting callers, first come first served; returns whom to resume.
    mutating func serveWaiters() -> [(CheckedContinuation<WorkerProcess, any Error>, WorkerProcess)] {
        var served: [(CheckedContinuation<WorkerProcess, any Error>, WorkerProcess)] = []
        while let waiter = waiters.first,
            let process = reserve(waiter.id, context: waiter.context, exclusive: waiter.exclusive)
        {
            waiters.removeFirst()
            served.append((waiter.continuation, process))
        }
        return served
    }
}
