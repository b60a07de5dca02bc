import Cloudlet
import CloudletWire
import Foundation
import Synchronization

extension WorkerPool {
    /// Runs the hook of `kind` for `name` on a worker and returns its answer as JSON.
    ///
    /// Throws 503 while the hook's circuit is open or the queue of waiting calls is full, 500/141
    /// "hook crashed" if the worker ends before answering (each as a ``HookDispatchError``), and the
    /// hook's own error otherwise.
    func invoke(_ kind: HookKind, _ name: String, input: ParseValue, original: ParseValue?, context: HookContext) async throws -> ParseValue {
        let hook = WorkerPoolState.hookKey(kind, name)
        let now = clock.now
        let (id, admitted) = state.withLock { state in
            var breaker = state.breakers[hook]
                ?? CircuitBreaker(threshold: configuration.crashesToOpenCircuit, openDuration: configuration.circuitOpenDuration)
            let admitted = breaker.admit(at: now)
            state.breakers[hook] = breaker
            defer { state.nextInvocationId += 1 }
            return (state.nextInvocationId, admitted)
        }
        guard admitted else {
            throw HookDispatchError(
                outcome: .circuitOpen, error: .unavailable("\(kind.rawValue) hook on \(name) is unavailable after repeated crashes"))
        }
        let process = try await acquireWorker(for: id, hook: hook, context: context)
        let invocation = WireInvocation(
            id: id, deadlineMilliseconds: Int64((context.deadline.timeIntervalSince1970 * 1000).rounded()), kind: kind.wire,
            name: name, appId: context.appId, requestId: context.requestId, userId: context.user?.id, isMaster: context.isMaster,
            installationId: context.installationId, eventId: context.eventId, input: input.jsonBuffer,
            original: original?.jsonBuffer)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let pending = state.withLock { state -> Bool in
                    guard state.invocations[id] != nil else { return false }
                    state.invocations[id]?.continuation = continuation
                    return true
                }
                if pending {
                    process.send(.invoke(invocation))
                } else {
                    continuation.resume(returning: .failure(.hookCrashed()))
                }
            }
        } onCancel: {
            if state.withLock({ $0.invocations[id] != nil }) { process.send(.cancel(id: id)) }
        }
        let outcome = try result.mapError { HookDispatchError(outcome: .crash, error: $0) }.get()
        state.withLock { $0.breakers[hook]?.recordSuccess() }
        return try outcome.value()
    }

    /// Waits (in the bounded queue, if every worker is full or restarting) for room on a worker.
    private func acquireWorker(for id: UInt64, hook: String, context: HookContext) async throws -> WorkerProcess {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate = state.withLock { state -> Result<WorkerProcess, any Error>? in
                    if state.isShuttingDown { return .failure(ParseError.unavailable("the server is shutting down")) }
                    if let process = state.reserve(id, hook: hook, context: context) { return .success(process) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard state.waiters.count < configuration.maximumQueuedInvocations else {
                        return .failure(
                            HookDispatchError(outcome: .rejected, error: .unavailable("too many hook calls are waiting; retry later", code: 155)))
                    }
                    state.waiters.append(WorkerPoolState.Waiter(id: id, hook: hook, context: context, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> WorkerPoolState.Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands free slots to waiting callers.
    func serveWaiters() {
        for (continuation, process) in state.withLock({ $0.serveWaiters() }) {
            continuation.resume(returning: process)
        }
    }
}
