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
/// traps).
final class WorkerProcess: Sendable {
    /// How a worker process ended.
    struct Ending: Sendable, CustomStringConvertible {
        let status: Int32
        let bySignal: Bool

        var description: String { bySignal ? "killed by signal \(status)" : "exited with status \(status)" }
    }

    let slot: Int
    let pid: Int32
    private let connectionState = Mutex<WireConnection?>(nil)
    private let fatalError = Mutex<String?>(nil)

    private init(slot: Int, pid: Int32) {
        self.slot = slot
        self.pid = pid
    }

    /// Starts `executable arguments… worker --socket <socketPath> --memory-limit-mb <limit>` for `slot`
    /// (through the confinement's launcher, if any), in its working folder with a scrubbed environment.
    /// Each line the worker writes goes to `onOutput` (with whether it came on standard error); its end
    /// goes to `onExit`.
    static func spawn(
        slot: Int, configuration: WorkerPoolConfiguration, socketPath: String,
        onOutput: @escaping @Sendable (WorkerProcess, String, _ isError: Bool) -> Void,
        onExit: @escaping @Sendable (WorkerProcess, Ending) -> Void
    ) throws -> WorkerProcess {
        let process = Process()
        let command = configuration.workerCommand(socketPath: socketPath)
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: configuration.workingFolder)
        process.environment = configuration.workerEnvironment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
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
        try started.withLock { started in
            try process.run()
            started = WorkerProcess(slot: slot, pid: process.processIdentifier)
        }
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let worker = started.withLock { $0! }
        // Each pipe is read by a thread of its own with blocking reads until end of file. (Foundation's
        // `readabilityHandler` is not used: on Linux its dispatch source can outlive the descriptor
        // and crash libdispatch's event loop when the server shuts down.)
        for (pipe, isError) in [(output, false), (errors, true)] {
            let handle = pipe.fileHandleForReading
            let reader = Thread {
                var lines = LineSplitter()
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    for line in lines.append(data) { worker.record(line, isError: isError, onOutput) }
                }
                for line in lines.finish() { worker.record(line, isError: isError, onOutput) }
                try? handle.close()
                finish(false)
            }
            reader.name = "cloudlet-worker-\(isError ? "stderr" : "stdout")"
            reader.start()
        }
        return worker
    }

    private func record(_ line: String, isError: Bool, _ onOutput: @Sendable (WorkerProcess, String, Bool) -> Void) {
        if isError, line.contains("Fatal error:") {
            fatalError.withLock { $0 = $0 ?? line }
        }
        onOutput(self, line, isError)
    }

    /// The first `Fatal error:` line the worker wrote, if any.
    var fatalErrorLine: String? { fatalError.withLock { $0 } }

    /// Whether the worker trapped because an allocation failed (it reached its memory limit).
    var ranOutOfMemory: Bool { fatalErrorLine?.contains("failed to allocate") == true }

    /// The worker has said hello on `connection`.
    func attach(_ connection: WireConnection) {
        connectionState.withLock { $0 = connection }
    }

    /// Sends `message` if the worker is connected.
    func send(_ message: WireMessage) {
        connectionState.withLock { $0 }?.send(message)
    }

    /// Ends the worker at once (SIGKILL).
    func kill() {
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

/// Splits a byte stream into lines, each cut at ``maximumLineBytes`` (with a note that it was): a
/// worker that prints without end costs the host a bounded buffer and log line, not its memory.
struct LineSplitter {
    /// The longest line kept, in bytes.
    static let maximumLineBytes = 8 << 10
    /// What ends a line that was cut.
    static let cutMarker = " [… line cut at \(maximumLineBytes) bytes]"

    private var pending = Data()
    /// Whether the current line has been cut and the rest of it is being dropped.
    private var cutting = false

    /// The lines that `data` completes.
    mutating func append(_ data: Data) -> [String] {
        var lines: [String] = []
        var rest = data[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let chunk = rest[..<(newline ?? rest.endIndex)]
            if !cutting {
                let room = Self.maximumLineBytes - pending.count
                pending.append(chunk.prefix(room))
                if chunk.count > room {
                    lines.append(String(decoding: pending, as: UTF8.self) + Self.cutMarker)
                    pending = Data()
                    cutting = true
                }
            }
            guard let newline else { break }
            if !cutting { lines.append(String(decoding: pending, as: UTF8.self)) }
            pending = Data()
            cutting = false
            rest = rest[rest.index(after: newline)...]
        }
        return lines
    }

    /// The last line, if the stream ended without a newline.
    mutating func finish() -> [String] {
        defer { pending = Data() }
        return pending.isEmpty || cutting ? [] : [String(decoding: pending, as: UTF8.self)]
    }
}
