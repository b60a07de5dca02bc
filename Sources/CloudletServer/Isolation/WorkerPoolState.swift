import Cloudlet
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

    /// An invocation sent (or about to be sent) to the worker in `slot`.
    struct Invocation {
        let slot: Int
        let hook: String
        let context: HookContext
        var continuation: CheckedContinuation<Result<WireOutcome, ParseError>, Never>?
    }

    /// A caller waiting for a worker with a free slot.
    struct Waiter {
        let id: UInt64
        let hook: String
        let context: HookContext
        let continuation: CheckedContinuation<Int, any Error>
    }

    var workers: [Int: Worker] = [:]
    var restarts: [Int: Date] = [:]
    var backoffs: [RestartBackoff]
    var invocations: [UInt64: Invocation] = [:]
    var waiters: [Waiter] = []
    var breakers: [String: CircuitBreaker] = [:]
    /// The hooks the workers serve, by ``hookKey(_:_:)``, with their time limits; nil until the first hello.
    var hooks: [String: Duration]?
    var nextInvocationId: UInt64 = 1
    var isShuttingDown = false

    init(slots: Int, backoff: RestartBackoff) {
        backoffs = Array(repeating: backoff, count: slots)
    }

    static func hookKey(_ kind: HookKind, _ name: String) -> String { "\(kind.rawValue) \(name)" }

    /// Gives invocation `id` a slot on the least busy worker that has one; nil if none has.
    mutating func reserve(_ id: UInt64, hook: String, context: HookContext) -> Int? {
        let free = workers.filter { $0.value.lifecycle.canAccept }
        guard let slot = free.min(by: { $0.value.lifecycle.inFlight.count < $1.value.lifecycle.inFlight.count })?.key else {
            return nil
        }
        workers[slot]?.lifecycle.sent(id, deadline: context.deadline)
        invocations[id] = Invocation(slot: slot, hook: hook, context: context)
        return slot
    }

    /// Hands free worker slots to waiting callers, first come first served; returns whom to resume.
    mutating func serveWaiters() -> [(CheckedContinuation<Int, any Error>, Int)] {
        var served: [(CheckedContinuation<Int, any Error>, Int)] = []
        while let waiter = waiters.first, let slot = reserve(waiter.id, hook: waiter.hook, context: waiter.context) {
            waiters.removeFirst()
            served.append((waiter.continuation, slot))
        }
        return served
    }
}
