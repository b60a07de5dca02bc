import Foundation

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
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw BenchmarkFailure("\(scenario.title): the server process ended before it listened") }
            line += more
        }
        guard let text = String(data: line, encoding: .utf8), text.hasPrefix("port "),
            let port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchmarkFailure("\(scenario.title): the server process printed \(String(decoding: line, as: UTF8.self))") }
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

/// The benchmark could not run as it should.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
