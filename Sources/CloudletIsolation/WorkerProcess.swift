import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One running worker process: its pid, its connection once it has said hello, and the Swift runtime's
/// `Fatal error:` line if it wrote one (for the hook log, and to tell running out of memory from other
/// traps). A worker the test support runs in memory has a negative pid, and ends when its connection closes.
///
/// A process worker lives inside ``run(slot:configuration:relay:started:onOutput:)``, which its pool
/// calls in a task of its own: ``stop()`` ends it gracefully (SIGTERM, then SIGKILL after
/// ``WorkerPoolConfiguration/stopGrace``), ``kill()`` at once, and cancelling that task tears it down as ``stop()`` does.
final class WorkerProcess: Sendable {
    /// How a worker process ended.
    struct Ending: Sendable, CustomStringConvertible {
        let status: Int32
        let bySignal: Bool

        var description: String { bySignal ? "killed by signal \(status)" : "exited with status \(status)" }

        /// Whether the process was ended by SIGKILL.
        var wasKilled: Bool { bySignal && status == SIGKILL }
    }

    let slot: Int
    let pid: Int32
    private let connectionState = Mutex<(any WireTransport)?>(nil)
    private let fatalError = Mutex<String?>(nil)
    /// How a worker run in memory is ended; nil for a process.
    private let endInMemory: (@Sendable () -> Void)?
    /// Asks the task that runs the process to stop it gracefully.
    let stopRequests = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(slot: Int, pid: Int32, endInMemory: (@Sendable () -> Void)? = nil) {
        self.slot = slot
        self.pid = pid
        self.endInMemory = endInMemory
    }

    /// Whether the worker is an operating-system process (rather than one run in memory).
    var isProcess: Bool { endInMemory == nil }

    /// A worker for `slot` run in memory, with a pid of its own below zero, which `end` ends.
    static func inMemory(slot: Int, end: @escaping @Sendable () -> Void) -> WorkerProcess {
        WorkerProcess(slot: slot, pid: lastInMemoryPid.subtract(1, ordering: .relaxed).newValue, endInMemory: end)
    }

    private static let lastInMemoryPid = Atomic<Int32>(0)

    /// Keeps the first `Fatal error:` line of standard error (whether or not the relay lets it
    /// through: it tells why the worker ended), and hands the lines the app's relay admits to `onOutput`.
    func record(
        _ lines: [LineSplitter.Line], isError: Bool, relay: WorkerOutputRelay, _ onOutput: @Sendable (WorkerProcess, String, Bool) -> Void
    ) {
        if isError, fatalErrorLine == nil, let line = lines.first(where: \.isFatalError) {
            fatalError.withLock { $0 = $0 ?? line.text }
        }
        for line in relay.admit(lines) { onOutput(self, line.text, isError) }
    }

    /// The first `Fatal error:` line the worker wrote, if any.
    var fatalErrorLine: String? { fatalError.withLock { $0 } }

    /// Whether the worker trapped because an allocation failed (it reached its memory limit).
    var ranOutOfMemory: Bool { fatalErrorLine?.contains("failed to allocate") == true }

    /// The worker has said hello on `connection`.
    func attach(_ connection: any WireTransport) {
        connectionState.withLock { $0 = connection }
    }

    /// Sends `message` if the worker is connected.
    func send(_ message: WireMessage) {
        connectionState.withLock { $0 }?.send(message)
    }

    /// Ends the worker gracefully: closes its connection (a worker ends when its host hangs up),
    /// then SIGTERM, then SIGKILL if it has not ended after its pool's stop grace.
    func stop() {
        if let endInMemory { return endInMemory() }
        connectionState.withLock { $0 }?.close()
        stopRequests.continuation.yield()
    }

    /// Ends the worker at once (SIGKILL).
    func kill() {
        if let endInMemory { return endInMemory() }
        sendKillSignal(to: pid)
        connectionState.withLock { $0 }?.close()
    }
}

private func sendKillSignal(to pid: Int32) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, SIGKILL)
    #elseif canImport(Darwin)
    _ = Darwin.kill(pid, SIGKILL)
    #endif
}
