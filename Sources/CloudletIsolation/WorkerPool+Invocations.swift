import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation
import NIOCore
import Synchronization

extension WorkerPool {
    /// Runs the hook of `kind` for `name` on a worker with the JSON `input` and `original`, and
    /// returns its answer (parsed only when the kind returns something).
    ///
    /// Throws 503 while the hook's circuit is open or the queue of waiting calls is full, 500/141
    /// "hook crashed" if the call brought its worker down, 503/141 "worker lost" if the worker ended
    /// under it for another reason and it could not be retried (see ``WorkerLoss``) — each as a
    /// ``HookDispatchError`` that says how the call ended — and the hook's own error otherwise.
    func invoke(_ kind: HookKind, _ name: String, input: ByteBuffer, original: ByteBuffer?, context: HookContext) async throws -> ParseValue {
        let hook = WorkerPoolState.hookKey(kind, name)
        let now = clock.now
        let admitted = state.withLock { state in
            var breaker = state.breakers[hook]
                ?? CircuitBreaker(threshold: configuration.crashesToOpenCircuit, openDuration: configuration.circuitOpenDuration)
            defer { state.breakers[hook] = breaker }
            return breaker.admit(at: now)
        }
        guard admitted else {
            throw HookDispatchError(
                outcome: .circuitOpen, error: .unavailable("\(kind.rawValue) hook on \(name) is unavailable after repeated crashes"))
        }
        let request = InvocationRequest(
            kind: kind.definition.wireNumber, name: name, context: context, input: input, original: original)
        var attempt = 0
        while true {
            switch try await runOnce(request, alone: attempt > 0) {
            case .answered(let outcome):
                state.withLock { $0.breakers[hook]?.recordSuccess() }
                if kind.definition.returns == .nothing, case .success = outcome { return .null }
                return try outcome.value()
            case .refused(let error):
                throw error
            case .timedOut:
                throw DeadlineRace.DeadlineExceeded()
            case .lost(let loss):
                switch loss.verdict(attempt: attempt, deadlinePassed: clock.now >= context.deadline) {
                case .retryAlone:
                    try Task.checkCancellation()
                    attempt += 1
                case .crashed:
                    state.withLock { $0.breakers[hook]?.recordCrash(at: clock.now) }
                    throw HookDispatchError(
                        outcome: .crash,
                        error: loss.ranOutOfMemory
                            ? .hookCrashed("hook crashed: it ran out of memory (limit \(configuration.memoryLimitMegabytes) MiB)")
                            : .hookCrashed())
                case .overran:
                    state.withLock { state in
                        if state.breakers[hook]?.isHalfOpen == true { state.breakers[hook]?.recordCrash(at: clock.now) }
                    }
                    throw HookDispatchError(outcome: .crash, error: .hookCrashed())
                case .lost:
                    throw HookDispatchError(outcome: .crash, error: .workerLost)
                }
            }
        }
    }

    /// What one attempt of a call sends.
    private struct InvocationRequest: Sendable {
        let kind: UInt8
        let name: String
        let context: HookContext
        let input: ByteBuffer
        let original: ByteBuffer?

        func invocation(id: UInt64) -> WireInvocation {
            WireInvocation(
                id: id, deadlineMilliseconds: Int64((context.deadline.timeIntervalSince1970 * 1000).rounded()), kind: kind,
                name: name, appId: context.appId, requestId: context.requestId, userId: context.user?.id,
                isMaster: context.isMaster, installationId: context.installationId, eventId: context.eventId, input: input,
                original: original, roles: context.user?.roles ?? [])
        }
    }

    /// Sends one attempt of a call to a worker (alone on it, if `alone`) and waits for how it ends,
    /// or for the ``CallDeadline`` of the current task, if it has one.
    private func runOnce(_ request: InvocationRequest, alone: Bool) async throws -> WorkerPoolState.Ending {
        // A worker with room takes the call at once, with no wait to set up.
        let (id, free) = state.withLock { state in
            defer { state.nextInvocationId += 1 }
            let id = state.nextInvocationId
            return (id, state.isShuttingDown ? nil : state.reserve(id, context: request.context, exclusive: alone))
        }
        let deadline = CallDeadline.current
        let process: WorkerProcess
        if let free {
            process = free
        } else {
            process = try await acquireWorker(for: id, context: request.context, alone: alone, until: deadline)
        }
        defer { deadline?.leave() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state -> WorkerPoolState.Ending? in
                    guard let invocation = state.invocations[id] else { return .refused(.workerLost) }
                    if let early = invocation.early {
                        state.invocations.removeValue(forKey: id)
                        return early
                    }
                    state.invocations[id]?.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(returning: early)
                } else {
                    process.send(.invoke(request.invocation(id: id)))
                    deadline?.enter { self.abandon(id, on: process) }
                }
            }
        } onCancel: {
            if state.withLock({ $0.invocations[id] != nil }) { process.send(.cancel(id: id)) }
        }
    }

    /// Stops waiting for invocation `id` at its deadline, if it is still waited for: its caller
    /// hears `timedOut` at once, and the worker is told to cancel it. It keeps its place on the
    /// worker until the worker answers or is killed for overrunning.
    private func abandon(_ id: UInt64, on process: WorkerProcess) {
        let continuation = state.withLock { state -> CheckedContinuation<WorkerPoolState.Ending, Never>? in
            guard let continuation = state.invocations[id]?.continuation else { return nil }
            state.invocations[id]?.continuation = nil
            state.invocations[id]?.abandoned = true
            return continuation
        }
        guard let continuation else { return }
        process.send(.cancel(id: id))
        continuation.resume(returning: .timedOut)
    }

    /// Waits (in the bounded queue, if every worker is full or restarting) for room on a worker,
    /// until `deadline` at most. A call to run `alone` waits for an idle worker, ahead of the queue
    /// and beyond its bound.
    private func acquireWorker(for id: UInt64, context: HookContext, alone: Bool, until deadline: CallDeadline?) async throws -> WorkerProcess {
        defer { deadline?.leave() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate = state.withLock { state -> Result<WorkerProcess, any Error>? in
                    if state.isShuttingDown { return .failure(ParseError.unavailable("the server is shutting down")) }
                    if let process = state.reserve(id, context: context, exclusive: alone) { return .success(process) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let waiter = WorkerPoolState.Waiter(id: id, context: context, exclusive: alone, continuation: continuation)
                    if alone {
                        state.waiters.insert(waiter, at: 0)
                        return nil
                    }
                    guard state.waiters.count < configuration.maximumQueuedInvocations else {
                        return .failure(
                            HookDispatchError(outcome: .rejected, error: .unavailable("too many hook calls are waiting; retry later", code: 155)))
                    }
                    state.waiters.append(waiter)
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                } else {
                    deadline?.enter { self.stopWaiting(id, with: DeadlineRace.DeadlineExceeded()) }
                }
            }
        } onCancel: {
            stopWaiting(id, with: CancellationError())
        }
    }

    /// Ends the wait of `id` for a worker, if it still waits, with `error`.
    private func stopWaiting(_ id: UInt64, with error: any Error) {
        let waiter = state.withLock { state -> WorkerPoolState.Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// Hands free slots to waiting callers.
    func serveWaiters() {
        for (continuation, process) in state.withLock({ $0.serveWaiters() }) {
            continuation.resume(returning: process)
        }
    }
}
