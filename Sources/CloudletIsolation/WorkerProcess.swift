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
final class WorkerProcess: Sendable {
    /// How a worker process ended.
    struct Ending: Sendable, CustomStringConvertible {
        let status: Int32
        let bySignal: Bool

        var description: String { bySignal ? "killed by signal \(status)" : "exited with status \(status)" }
    }

    let slot: Int
    let pid: Int32
    private let connectionState = Mutex<(any WireTransport)?>(nil)
    private let fatalError = Mutex<String?>(nil)
    /// How a worker run in memory is ended; nil for a process.
    private let endInMemory: (@Sendable () -> Void)?

    private init(slot: Int, pid: Int32, endInMemory: (@Sendable () -> Void)? = nil) {
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

    /// Starts `executable arguments… worker --memory-limit-mb <limit>` for `slot` (through the
    /// confinement's launcher, if any), in its working folder with a scrubbed environment, its
    /// standard input one end of a new socket pair: the worker's only way to its host. Returns the
    /// worker and the host's end of the pair (the caller owns it). Each line the worker writes goes
    /// through `relay` to `onOutput` (with whether it came on standard error); its end goes to `onExit`.
    static func spawn(
        slot: Int, configuration: WorkerPoolConfiguration, relay: WorkerOutputRelay,
        onOutput: @escaping @Sendable (WorkerProcess, String, _ isError: Bool) -> Void,
        onExit: @escaping @Sendable (WorkerProcess, Ending) -> Void
    ) throws -> (worker: WorkerProcess, hostEnd: CInt) {
        let (hostEnd, workerEnd) = try socketPair()
        // The worker's end is the worker's alone: the host's copy closes once it is handed over.
        defer { close(workerEnd) }
        let process = Process()
        let command = configuration.workerCommand
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: configuration.workingFolder)
        process.environment = configuration.workerEnvironment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle(fileDescriptor: workerEnd, closeOnDealloc: false)
        let started = Mutex<WorkerProcess?>(nil)
        let ends = Mutex((seen: 0, reported: false))
        // The exit is reported once the process has ended and both pipes are drained, so that its
        // `Fatal error:` line has been read; or half a second after the process ended, in case another
        // child inherited a pipe and holds it open.
        let finish: @Sendable (_ force: Bool) -> Void = { force in
            let report = ends.withLock { ends -> Bool in
                if !force { ends.seen += 1 }
                guard !ends.reported, force || ends.seen == 3 else { return false }
                ends.reported = true
                return true
            }
            if report, let worker = started.withLock({ $0 }) {
                onExit(worker, Ending(status: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal))
            }
        }
        process.terminationHandler = { _ in
            finish(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { finish(true) }
        }
        do {
            try started.withLock { started in
                try process.run()
                started = WorkerProcess(slot: slot, pid: process.processIdentifier)
            }
        } catch {
            close(hostEnd)
            throw error
        }
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let worker = started.withLock { $0! }
        for (pipe, isError) in [(output, false), (errors, true)] {
            OutputReader.start(pipe.fileHandleForReading, isError: isError) { lines in
                worker.record(lines, isError: isError, relay: relay, onOutput)
            } onEnd: {
                finish(false)
            }
        }
        return (worker, hostEnd)
    }

    /// A connected pair of Unix-domain stream sockets, both closed on `exec`.
    private static func socketPair() throws -> (CInt, CInt) {
        var ends: [CInt] = [-1, -1]
        #if canImport(Glibc)
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw ParseError.unavailable("could not make a socket pair for a worker (errno \(errno))")
        }
        return (ends[0], ends[1])
    }

    /// Keeps the first `Fatal error:` line of standard error (whether or not the relay lets it
    /// through: it tells why the worker ended), and hands the lines the app's relay admits to `onOutput`.
    private func record(
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
