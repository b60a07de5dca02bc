import Foundation
import LoadSupport

/// A server under test in a process of its own, so that the CPU time it and its workers use is
/// read apart from the load generator's: this executable run as `serve <scenario>`, or PocketBase.
final class ServerProcess {
    /// The running server.
    let process: Process
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// The path a save is posted to.
    let savePath: String
    private let input: Pipe?
    private let cleanUp: () -> Void

    init(process: Process, port: Int, savePath: String, input: Pipe? = nil, cleanUp: @escaping () -> Void = {}) {
        self.process = process
        self.port = port
        self.savePath = savePath
        self.input = input
        self.cleanUp = cleanUp
    }

    /// Starts this executable as `serve <option>`, which prints `port <n>` once its server listens
    /// and stops it (and its workers) when its standard input closes.
    static func benchmarkServer(_ scenario: BenchmarkScenario) throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = ["serve", scenario.option]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let port = try readListeningPort(from: output, server: scenario.title)
        return ServerProcess(process: process, port: port, savePath: "/parse/classes/\(SaveRequest.className)", input: input)
    }

    /// Asks the server to stop (its standard input closed, or SIGTERM), waits for it, and removes its data.
    func stop() {
        if let input {
            try? input.fileHandleForWriting.close()
        } else {
            process.terminate()
        }
        process.waitUntilExit()
        cleanUp()
    }

    /// In the server process: waits on a thread of its own (not one of the few the server's tasks
    /// run on) until standard input closes.
    static func standardInputClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                _ = FileHandle.standardInput.readDataToEndOfFile()
                continuation.resume()
            }
        }
    }
}

