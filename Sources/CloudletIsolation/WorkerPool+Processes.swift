import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A worker process for ``WorkerPool/run()`` to start: its slot, and whether it replaces one of a
/// slot whose workers keep ending (it starts on probation).
struct WorkerStart: Sendable {
    let slot: Int
    let replacing: Bool
}

extension WorkerPool {
    /// Runs the worker process of `start` to its end, in the calling task (a child of ``run()``'s
    /// group, or of ``announceHooks()``): it serves its slot once started, its output is read here,
    /// and its end is handled (``exited(_:_:)``) before this returns. A process that cannot be
    /// started is tried again after the longest restart delay.
    func runWorker(_ start: WorkerStart) async {
        guard !state.withLock({ $0.isShuttingDown }) else { return }
        do {
            let (process, ending) = try await WorkerProcess.run(
                slot: start.slot, configuration: configuration, relay: outputRelay,
                started: { process, hostEnd in
                    self.serve(process, replacing: start.replacing)
                    self.connect(process, over: hostEnd)
                },
                onOutput: { [weak self] in self?.output($0, line: $1, isError: $2) })
            exited(process, ending)
        } catch {
            logger.error("could not start worker", metadata: ["error": "\(error)"])
            let retry = clock.now.addingTimeInterval(configuration.maximumRestartDelay.seconds)
            state.withLock { state in
                guard !state.isShuttingDown else { return }
                state.restarts[start.slot] = retry
                state.wakeSupervisor()
            }
        }
    }

    /// Puts the just started `process` in its slot (in the app's CPU group, or its idle group when
    /// `replacing` one of a slot whose workers keep ending); a pool that is stopping stops it at once.
    private func serve(_ process: WorkerProcess, replacing: Bool) {
        let lifecycle = WorkerLifecycle(spawnedAt: clock.now, limits: configuration.lifecycleLimits, replacing: replacing)
        let stopping = state.withLock { state in
            if lifecycle.belongsInTheIdleGroup(longCall: configuration.demotionDelay, at: clock.now) {
                cpuShare.demote(process.pid)
                state.demoted.insert(process.pid)
            } else {
                cpuShare.adopt(process.pid)
            }
            var worker = WorkerPoolState.Worker(process: process, lifecycle: lifecycle)
            if state.isShuttingDown {
                worker.lifecycle.killing(because: WorkerLifecycle.poolStopped)
                state.draining[process.pid] = worker
            } else {
                state.workers[process.slot] = worker
            }
            return state.isShuttingDown
        }
        if stopping { process.stop() }
    }

    /// Serves `process` on `descriptor`, the host's end of its socket pair (the channel owns it from
    /// here, and closes it when the bootstrap fails). A worker whose connection
    /// closes is ending (its exit is handled when it comes), or misses its next health check and is killed.
    private func connect(_ process: WorkerProcess, over descriptor: CInt) {
        let peer = WorkerPeer(worker: process)
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try WireFraming.addHandlers(to: channel.pipeline.syncOperations)
                    let connection = try WireConnection(channel: channel, receiver: self.receiver(for: peer))
                    peer.connection.withLock { $0 = connection }
                }
            }
            .withConnectedSocket(descriptor)
            .whenFailure { [logger] error in
                logger.error("could not serve a worker's connection", metadata: ["worker.pid": "\(process.pid)", "error": "\(error)"])
                process.kill()
            }
    }

    /// Runs the worker of slot 0 until it has said which hooks the pool serves, then stops it as a
    /// reload stops a replaced worker (its slot is left for ``run()`` to fill). Throws, with the
    /// worker torn down, if it has not said so within the startup timeout.
    func announceHooks() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.runWorker(WorkerStart(slot: 0, replacing: false)) }
            do {
                try await waitForHooks()
            } catch {
                group.cancelAll()
                throw error
            }
            let worker = state.withLock { state -> WorkerProcess? in
                state.restarts = [:]
                guard var worker = state.workers.removeValue(forKey: 0) else { return nil }
                worker.lifecycle.drain()
                worker.lifecycle.killing(because: WorkerLifecycle.drained)
                state.draining[worker.process.pid] = worker
                return worker.process
            }
            worker?.stop()
            try await group.waitForAll()
        }
    }
}
