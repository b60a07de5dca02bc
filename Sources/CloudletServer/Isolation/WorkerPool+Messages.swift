import Cloudlet
import CloudletWire
import Foundation
import Synchronization
import Logging

extension WorkerPool {
    /// Handles a message from a worker (on its connection's event loop).
    func received(_ message: WireMessage, from peer: WorkerPeer) {
        switch message {
        case .hello(let hello):
            helloReceived(hello, from: peer)
        case .result(let id, let outcome):
            let continuation = state.withLock { state -> CheckedContinuation<Result<WireOutcome, ParseError>, Never>? in
                guard let invocation = state.invocations.removeValue(forKey: id) else { return nil }
                state.updateLifecycle(of: invocation.process) { $0.answered(id) }
                state.backoffs[invocation.process.slot].reset()
                return invocation.continuation
            }
            serveWaiters()
            continuation?.resume(returning: .success(outcome))
        case .storeCall(let call):
            let context = state.withLock { $0.invocations[call.invocationId]?.context }
            let connection = peer.connection.withLock { $0 }
            guard let context else {
                connection?.send(.storeReply(id: call.id, .failed(description: "the invocation has ended")))
                return
            }
            Task {
                let outcome = await WireOutcome.of { try await StoreCallServer.serve(call, store: context.store) }
                connection?.send(.storeReply(id: call.id, outcome))
            }
        case .log(let record):
            guard let context = state.withLock({ $0.invocations[record.invocationId]?.context }) else { return }
            let metadata = (try? ParseValue(json: record.metadata).objectValue)?.mapValues { Logger.MetadataValue.string($0.stringValue ?? "") }
            let level = Logger.Level.allCases[Int(min(record.level, UInt8(Logger.Level.allCases.count - 1)))]
            context.logger.log(level: level, "\(record.message)", metadata: metadata)
        case .pong:
            guard let process = peer.process.withLock({ $0 }) else { return }
            let now = clock.now
            state.withLock { $0.updateLifecycle(of: process) { $0.ponged(at: now) } }
        case .invoke, .storeReply, .cancel, .ping:
            peer.connection.withLock { $0 }?.close()
        }
    }

    private func helloReceived(_ hello: WireHello, from peer: WorkerPeer) {
        let now = clock.now
        guard let connection = peer.connection.withLock({ $0 }) else { return }
        let process = state.withLock { state -> WorkerProcess? in
            guard let (slot, worker) = state.workers.first(where: { $0.value.process.pid == hello.processId }) else { return nil }
            worker.process.attach(connection)
            state.workers[slot]?.lifecycle.becameReady(at: now)
            if state.hooks == nil || state.hooksNeedRefresh {
                state.hooksNeedRefresh = false
                state.hooks = Dictionary(
                    hello.hooks.map(HookRegistry.Summary.init).map { (WorkerPoolState.hookKey($0.kind, $0.name), $0) },
                    uniquingKeysWith: { _, last in last })
            }
            return worker.process
        }
        guard let process else {
            logger.warning("a process that is not one of the pool's workers connected", metadata: ["worker.pid": "\(hello.processId)"])
            connection.close()
            return
        }
        peer.process.withLock { $0 = process }
        logger.debug("worker ready", metadata: ["worker.pid": "\(hello.processId)", "worker.slot": "\(process.slot)"])
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

    /// A worker ended: fail its unanswered invocations, count crashes against their hooks' circuits,
    /// and schedule the slot's restart.
    func exited(_ process: WorkerProcess, _ ending: WorkerProcess.Ending) {
        let now = clock.now
        let failed = state.withLock { state -> (lost: [WorkerPoolState.Invocation], wasKilled: Bool)? in
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
            let (unanswered, wasKilled) = lifecycle.exited()
            let lost = unanswered.compactMap { state.invocations.removeValue(forKey: $0) }
            for invocation in lost where !wasKilled || state.breakers[invocation.hook]?.isHalfOpen == true {
                state.breakers[invocation.hook]?.recordCrash(at: now)
            }
            if servedSlot && !state.isShuttingDown {
                // A worker the pool killed (a hook overran) was healthy: replace it at once. Only
                // workers that end on their own back off, so that a crash loop does not spin.
                let delay = wasKilled ? .zero : state.backoffs[process.slot].nextDelay()
                state.restarts[process.slot] = now.addingTimeInterval(delay.seconds)
            }
            return (lost, wasKilled)
        }
        guard let failed else { return }
        let error: ParseError =
            process.ranOutOfMemory
            ? .hookCrashed("hook crashed: it ran out of memory (limit \(configuration.memoryLimitMegabytes) MiB)") : .hookCrashed()
        var metadata: Logger.Metadata = ["worker.pid": "\(process.pid)", "worker.exit": "\(ending)"]
        if let fatalErrorLine = process.fatalErrorLine { metadata["worker.fatal_error"] = "\(fatalErrorLine)" }
        if failed.lost.isEmpty {
            hookLogger.log(level: failed.wasKilled ? .info : .error, "worker ended", metadata: metadata)
        }
        for invocation in failed.lost {
            invocation.context.logger.error(failed.wasKilled ? "worker killed" : "hook crashed", metadata: metadata)
            invocation.continuation?.resume(returning: .failure(error))
        }
    }
}
