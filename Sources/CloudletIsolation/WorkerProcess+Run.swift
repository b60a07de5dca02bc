import Cloudlet
import CloudletRuntime
import Foundation
import Subprocess

#if canImport(System)
import System
#else
import SystemPackage
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WorkerProcess {
    /// Runs `executable arguments… worker --memory-limit-mb <limit>` for `slot` (through the
    /// confinement's launcher, if any) in its working folder with a scrubbed environment and a
    /// process group of its own, its standard input one end of a new socket pair: the worker's only
    /// way to its host. Once it runs, `started` gets the worker and the host's end of the pair
    /// (which it then owns). Its standard output and error are read here, as async sequences: each
    /// line goes through `relay` to `onOutput` (with whether it came on standard error).
    ///
    /// Returns the worker and how its process ended, once it has and both its streams are read.
    /// ``stop()`` ends it gracefully (SIGTERM, then SIGKILL after the configuration's
    /// ``WorkerPoolConfiguration/stopGrace``); cancelling the calling task does the same. Throws if
    /// the process could not be started.
    static func run(
        slot: Int, configuration: WorkerPoolConfiguration, relay: WorkerOutputRelay,
        started: @Sendable (WorkerProcess, _ hostEnd: CInt) -> Void,
        onOutput: @escaping @Sendable (WorkerProcess, String, _ isError: Bool) -> Void
    ) async throws -> (worker: WorkerProcess, ending: Ending) {
        let (hostEnd, workerEnd) = try socketPair()
        // The worker's end is the worker's alone: the host's copy closes once the process runs.
        var handedOver = false
        defer {
            if !handedOver {
                close(workerEnd)
                close(hostEnd)
            }
        }
        let command = configuration.workerCommand
        let environment = configuration.workerEnvironment.compactMap { name, value in Environment.Key(rawValue: name).map { ($0, value) } }
        var options = PlatformOptions()
        // Its own process group: a terminal's Ctrl-C to the host's group does not reach it.
        options.processGroupID = 0
        // When the calling task is cancelled: SIGTERM, then SIGKILL after the grace.
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: configuration.stopGrace)]
        let result = try await Subprocess.run(
            .path(FilePath(command[0])), arguments: Arguments(Array(command.dropFirst())),
            environment: .custom(Dictionary(uniqueKeysWithValues: environment)),
            workingDirectory: FilePath(configuration.workingFolder), platformOptions: options,
            input: .fileDescriptor(FileDescriptor(rawValue: workerEnd), closeAfterSpawningProcess: false), output: .sequence, error: .sequence
        ) { execution in
            let worker = WorkerProcess(slot: slot, pid: execution.processIdentifier.value)
            handedOver = true
            close(workerEnd)
            started(worker, hostEnd)
            let (standardOutput, standardError) = (execution.standardOutput, execution.standardError)
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await worker.read(standardOutput, isError: false, relay: relay, onOutput)
                    return true
                }
                group.addTask {
                    await worker.read(standardError, isError: true, relay: relay, onOutput)
                    return true
                }
                group.addTask {
                    // Cancelled once both streams have ended, that is once the process has.
                    for await _ in worker.stopRequests.stream {
                        try? execution.send(signal: .terminate)
                        try? await Task.sleep(for: configuration.stopGrace)
                        if !Task.isCancelled { try? execution.send(signal: .kill) }
                        break
                    }
                    return false
                }
                var streamsRead = 0
                while streamsRead < 2, let isStream = await group.next() {
                    if isStream { streamsRead += 1 }
                }
                group.cancelAll()
            }
            return worker
        }
        switch result.terminationStatus {
        case .exited(let code): return (result.closureResult, Ending(status: code, bySignal: false))
        case .signaled(let signal): return (result.closureResult, Ending(status: signal, bySignal: true))
        }
    }

    /// Reads one of the worker's streams to its end (the process's end ends it too): each chunk's
    /// complete lines, then the last unfinished one, go through `relay` to `onOutput`. A worker that
    /// prints without end costs the host a read per chunk and a scan for newlines; the lines its
    /// relay drops are never made into strings.
    private func read(
        _ stream: SubprocessOutputSequence, isError: Bool, relay: WorkerOutputRelay,
        _ onOutput: @escaping @Sendable (WorkerProcess, String, Bool) -> Void
    ) async {
        var lines = LineSplitter()
        do {
            for try await chunk in stream {
                let complete = chunk.withUnsafeBytes { lines.append(Array($0)[...]) }
                if !complete.isEmpty { record(complete, isError: isError, relay: relay, onOutput) }
            }
        } catch {
            // The stream ended with the process, or the task was cancelled: what was read is kept.
        }
        let last = lines.finish()
        if !last.isEmpty { record(last, isError: isError, relay: relay, onOutput) }
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
}
