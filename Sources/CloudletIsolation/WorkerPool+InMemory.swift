import Cloudlet
import CloudletWire
import Logging
import Synchronization

/// Connects a pool to a worker loop run in this process instead of a spawned worker: called with the
/// slot and `attach`, which takes the pool's end of the new connection and returns what the pool
/// does with what arrives on it. The worker loop may speak once its end is attached.
///
/// The test support connects each slot to a ``WorkerSession`` over an in-memory transport, so that
/// the pool's message handling runs with no process.
public typealias WorkerConnector = @Sendable (_ slot: Int, _ attach: (any WireTransport) -> WireReceiver) throws -> Void

extension WorkerPool {
    /// A pool as ``launch(_:logger:hookLogger:clock:metrics:)`` makes, whose workers `connector`
    /// runs in memory, started at once (not by ``run()``), and returned once one has said hello: no
    /// process is spawned and the workers' folder is left alone. A worker ends
    /// when its connection closes, from either side; the pool kills one by closing it.
    public static func launch(
        _ configuration: WorkerPoolConfiguration, connectingWorkersWith connector: @escaping WorkerConnector, logger: Logger,
        hookLogger: Logger? = nil, clock: any CloudletClock
    ) async throws -> WorkerPool {
        let pool = WorkerPool(
            configuration: configuration, logger: logger, hookLogger: hookLogger ?? logger, clock: clock, metrics: nil, connector: connector)
        do {
            for slot in 0..<configuration.workerCount { try pool.spawn(slot, replacing: false) }
            try await pool.waitForHooks()
        } catch {
            pool.stop()
            throw error
        }
        return pool
    }

    /// Starts the worker of `slot` in memory through `connector`.
    func startInMemory(_ slot: Int, with connector: WorkerConnector) throws -> WorkerProcess {
        let connection = Mutex<(any WireTransport)?>(nil)
        let process = WorkerProcess.inMemory(slot: slot) { connection.withLock { $0 }?.close() }
        let peer = WorkerPeer(worker: process)
        try connector(slot) { transport in
            connection.withLock { $0 = transport }
            peer.connection.withLock { $0 = transport }
            var handling = receiver(for: peer)
            handling.closed = { [weak self] in self?.exited(process, WorkerProcess.Ending(status: 0, bySignal: false)) }
            return handling
        }
        return process
    }
}
