import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation
import Synchronization
import Logging
import NIOCore

extension WorkerPool {
    /// What the pool does with what arrives from the worker at the other end of `peer`.
    func receiver(for peer: WorkerPeer) -> WireReceiver {
        WireReceiver(message: { self.received($0, from: peer) }, oversized: { self.receivedOversized($0, from: peer) })
    }

    /// Handles a message from a worker (on its connection's event loop). Before its hello, a
    /// connection may say nothing else; after it, it speaks only for its own worker's invocations.
    func received(_ message: WireMessage, from peer: WorkerPeer) {
        if case .hello(let hello) = message { return helloReceived(hello, from: peer) }
        guard peer.hasSaidHello else {
            peer.connection.withLock { $0 }?.close()
            return
        }
        let process = peer.worker
        switch message {
        case .result(let id, let outcome):
            finish(id, .answered(outcome), from: process)
        case .storeCall(let call):
            let context = invocationContext(call.invocationId, on: process)
            let connection = peer.connection.withLock { $0 }
            guard let context else {
                connection?.send(.storeReply(id: call.id, .failed(description: "the invocation has ended")))
                return
            }
            enqueue(StoreCallRequest(call: call, store: context.store, connection: connection))
        case .log(let record):
            guard let context = invocationContext(record.invocationId, on: process),
                outputRelay.admit(bytes: record.message.utf8.count + record.metadata.readableBytes)
            else { return }
            let metadata = (try? ParseValue(json: record.metadata).objectValue)?.mapValues { Logger.MetadataValue.string($0.stringValue ?? "") }
            let level = Logger.Level.allCases[Int(min(record.level, UInt8(Logger.Level.allCases.count - 1)))]
            context.logger.log(level: level, "\(record.message)", metadata: metadata)
        case .pong:
            let now = clock.now
            state.withLock { $0.updateLifecycle(of: process) { $0.ponged(at: now) } }
        case .hello, .invoke, .storeReply, .cancel, .ping:
            peer.connection.withLock { $0 }?.close()
        }
    }

    /// The context of invocation `id` if it runs on `process`.
    private func invocationContext(_ id: UInt64, on process: WorkerProcess) -> HookContext? {
        state.withLock { state in
            guard let invocation = state.invocations[id], invocation.process === process else { return nil }
            return invocation.context
        }
    }

    /// The worker at the other end of `peer` said hello: it is ready (if it still serves its slot),
    /// and the first hello (or the first after a reload) says which hooks the pool serves. A second
    /// hello closes the connection, as does the hello of a worker a reload replaced before it said it.
    private func helloReceived(_ hello: WireHello, from peer: WorkerPeer) {
        let now = clock.now
        guard let connection = peer.connection.withLock({ $0 }) else { return }
        let process = peer.worker
        let ready = !peer.hasSaidHello && state.withLock { state -> Bool in
            guard state.workers[process.slot]?.process === process else {
                // Replaced by a reload before its hello: it has no call to finish, and ends now.
                state.draining[process.pid]?.lifecycle.killing(because: WorkerLifecycle.drained)
                return false
            }
            process.attach(connection)
            state.workers[process.slot]?.lifecycle.becameReady(at: now)
            if state.hooks == nil || state.hooksNeedRefresh {
                state.hooksNeedRefresh = false
                state.hooks = Dictionary(
                    hello.hooks.compactMap(HookRegistry.Summary.init).map { (WorkerPoolState.hookKey($0.kind, $0.name), $0) },
                    uniquingKeysWith: { _, last in last })
            }
            return true
        }
        guard ready else {
            connection.close()
            return
        }
        peer.saidHello()
        logger.debug("worker ready", metadata: ["worker.pid": "\(process.pid)", "worker.slot": "\(process.slot)"])
        serveWaiters()
    }

    /// A line the worker wrote to standard output or error: into the app's hook log, tagged with the
    /// hook and request when the worker was running exactly one.
    func output(_ process: WorkerProcess, line: String, isError: Bool) {
        let contexts = state.withLock { state in
            state.invocations.values.filter { $0.process === process }.map(\.context)
        }
        var logger = contexts.count == 1 ? contexts[0].logger : hookLogger
        logger[metadataKey: "worker.pid"] = "\(process.pid)"
        logger[metadataKey: "stream"] = isError ? "stderr" : "stdout"
        logger.log(level: isError ? .warning : .info, "\(line)")
    }

    /// A frame from a worker over the size bound: a result fails its call, a store call is refused,
    /// a log line is dropped. The connection carries on.
    func receivedOversized(_ head: WireFrameHead, from peer: WorkerPeer) {
        let connection = peer.connection.withLock { $0 }
        guard peer.hasSaidHello else {
            connection?.close()
            return
        }
        let process = peer.worker
        switch head.type {
        case .result:
            finish(head.id, .refused(.resultTooLarge), from: process)
        case .storeCall:
            connection?.send(.storeReply(id: head.id, .refused(code: 141, message: "store call too large")))
        case .log:
            hookLogger.warning("dropped a hook's log line over the frame bound", metadata: ["bytes": "\(head.length)"])
        default:
            connection?.close()
        }
    }

    /// Invocation `id` ended on its worker `process`: frees its place and hands the ending to its caller.
    private func finish(_ id: UInt64, _ ending: WorkerPoolState.Ending, from process: WorkerProcess) {
        let (continuation, served) = state.withLock { state in
            var continuation: CheckedContinuation<WorkerPoolState.Ending, Never>?
            if state.invocations[id]?.process === process, let invocation = state.invocations.removeValue(forKey: id) {
                state.updateLifecycle(of: invocation.process) { $0.answered(id) }
                state.backoffs[invocation.process.slot].reset()
                continuation = invocation.continuation
            }
            return (continuation, state.serveWaiters())
        }
        for (waiter, worker) in served { waiter.resume(returning: worker) }
        continuation?.resume(returning: ending)
    }

    /// A worker ended: hand each unanswered invocation its loss (the caller decides, by
    /// ``WorkerLoss``, whether to retry or whom to blame), and schedule the slot's restart.
    func exited(_ process: WorkerProcess, _ ending: WorkerProcess.Ending) {
        let now = clock.now
        let ranOutOfMemory = process.ranOutOfMemory
        let failed = state.withLock { state -> (lost: [WorkerPoolState.Invocation], loss: WorkerLoss, planned: Bool)? in
            state.demoted.remove(process.pid)
            let worker: WorkerPoolState.Worker
            let servedSlot = state.workers[process.slot]?.process === process
            if servedSlot {
                worker = state.workers.removeValue(forKey: process.slot)!
            } else if let drained = state.draining.removeValue(forKey: process.pid) {
                worker = drained
            } else {
                return nil
            }
            var lifecycle = worker.lifecycle
            let planned = lifecycle.isStopping
            let (unanswered, wasKilled) = lifecycle.exited()
            let loss = WorkerLoss(wasKilled: wasKilled, callsInFlight: unanswered.count, ranOutOfMemory: ranOutOfMemory)
            var lost: [WorkerPoolState.Invocation] = []
            for id in unanswered {
                guard let invocation = state.invocations[id] else { continue }
                if invocation.continuation == nil && !invocation.abandoned {
                    state.invocations[id]?.early = .lost(loss)
                } else {
                    state.invocations.removeValue(forKey: id)
                    lost.append(invocation)
                }
            }
            if servedSlot && !state.isShuttingDown {
                // A worker the pool killed (a hook overran) was healthy: replace it at once. Only
                // workers that end on their own back off, so that a crash loop does not spin.
                // Either way the pool's restart budget paces them, and ends in a row put the
                // slot's next worker on probation.
                if wasKilled { state.backoffs[process.slot].workerWasKilled() }
                let delay = wasKilled ? .zero : state.backoffs[process.slot].nextDelay()
                state.restarts[process.slot] = max(now.addingTimeInterval(delay.seconds), state.restartBudget.nextStart(wantedAt: now))
                state.wakeSupervisor()
            }
            return (lost, loss, planned)
        }
        guard let failed else { return }
        var metadata: Logger.Metadata = ["worker.pid": "\(process.pid)", "worker.exit": "\(ending)"]
        if let fatalErrorLine = process.fatalErrorLine { metadata["worker.fatal_error"] = "\(fatalErrorLine)" }
        if failed.lost.isEmpty {
            // A worker ended on purpose (drained, or its pool stopped) is a normal stop; only an
            // unplanned end says how the process died.
            if failed.planned && ending.wasKilled && process.isProcess {
                hookLogger.warning(
                    "worker did not end within its stop grace after SIGTERM; killed",
                    metadata: ["worker.pid": "\(process.pid)", "grace": "\(configuration.stopGrace)"])
            } else if failed.planned {
                hookLogger.info("worker stopped", metadata: ["worker.pid": "\(process.pid)"])
            } else {
                hookLogger.log(level: failed.loss.wasKilled ? .warning : .error, "worker ended", metadata: metadata)
            }
        }
        for invocation in failed.lost {
            invocation.context.logger.error(failed.loss.wasKilled ? "worker killed" : "worker crashed", metadata: metadata)
            invocation.continuation?.resume(returning: .lost(failed.loss))
        }
    }
}
