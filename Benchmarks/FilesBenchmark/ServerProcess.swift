import Foundation
import LoadSupport

/// The benchmark's server, started as this executable with `--serve <folder>`; its peak resident
/// memory (VmHWM) is read from `/proc/<pid>/status` and reset through `/proc/<pid>/clear_refs`.
final class ServerProcess {
    let process = Process()
    let port: Int
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-files-benchmark-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = ["--serve", folder.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.port = try readListeningPort(from: output, server: "the files benchmark")
    }

    /// The server's resident memory now (VmRSS) and its peak since start or ``resetPeak()`` (VmHWM), in MiB.
    var memory: (resident: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func mebibytes(_ field: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
        }
        return (mebibytes("VmRSS:"), mebibytes("VmHWM:"))
    }

    /// Sets the server's peak to the memory resident now.
    func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/clear_refs"))
    }

    /// Ends the server and removes its data folder.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}

