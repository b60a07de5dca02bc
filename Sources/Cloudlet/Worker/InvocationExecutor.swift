import Dispatch
import NIOCore
import Synchronization

/// Where a worker runs one invocation's code, and how long it held a thread at one go.
///
/// On the event loop that read the invocation's frame, a hook runs with no hand-off to another
/// thread and its answer is written from there; on Dispatch's global queue, a hook that computes for long
/// holds up no other call, nor the answers to health checks. ``WorkerSession`` runs a hook on the
/// loop only after a run of it held a thread no longer than ``quickJobNanoseconds`` at any one time
/// (see ``ranQuickly``), and moves it back to the pool when a run does not.
final class InvocationExecutor: TaskExecutor {
    /// The longest a hook's code may run between two suspensions and still run on the event loop:
    /// what it can delay the frames of the other calls and the health checks by.
    static let quickJobNanoseconds: UInt64 = 2_000_000

    /// The loop the invocation runs on, or nil for Dispatch's global queue (not Swift's cooperative
    /// pool: the executor runs each piece of code itself, to time it).
    let eventLoop: (any EventLoop)?
    private let heldLong = Atomic(false)
    /// When the piece of code running now started, in `DispatchTime` nanoseconds.
    private let jobStart = Atomic<UInt64>(0)

    /// An executor running on `eventLoop`, or on Dispatch's global queue if nil.
    init(eventLoop: (any EventLoop)?) {
        self.eventLoop = eventLoop
    }

    /// Whether every piece of the invocation's code so far ran within ``quickJobNanoseconds``,
    /// the one running now (which asks) included.
    var ranQuickly: Bool {
        !heldLong.load(ordering: .relaxed)
            && DispatchTime.now().uptimeNanoseconds - jobStart.load(ordering: .relaxed) <= Self.quickJobNanoseconds
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let eventLoop {
            eventLoop.execute { self.run(job) }
        } else {
            DispatchQueue.global().async { self.run(job) }
        }
    }

    private func run(_ job: UnownedJob) {
        let start = DispatchTime.now().uptimeNanoseconds
        jobStart.store(start, ordering: .relaxed)
        job.runSynchronously(on: asUnownedTaskExecutor())
        if DispatchTime.now().uptimeNanoseconds - start > Self.quickJobNanoseconds { heldLong.store(true, ordering: .relaxed) }
    }
}
