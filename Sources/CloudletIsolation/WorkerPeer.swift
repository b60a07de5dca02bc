import CloudletWire
import Synchronization

/// The host's end of one worker's connection: the worker it was handed to at spawn, and whether
/// the worker has said hello on it (before that, it may say nothing else).
final class WorkerPeer: Sendable {
    let worker: WorkerProcess
    let connection = Mutex<(any WireTransport)?>(nil)
    private let greeted = Mutex(false)

    init(worker: WorkerProcess) {
        self.worker = worker
    }

    /// Whether the worker has said hello.
    var hasSaidHello: Bool { greeted.withLock { $0 } }

    /// Notes that the worker has said hello.
    func saidHello() { greeted.withLock { $0 = true } }
}
