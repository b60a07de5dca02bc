import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A built Cloudlet executable (`cloudlet`, `cloudlet-fixture` or `cloudlet-worker-fixture`) running as a child process, with its
/// standard output and error captured in files.
///
/// ```swift
/// let server = try await ServerProcess.serve(.cloudlet, data: folder)
/// defer { server.killIfRunning() }
/// let reply = try await server.client().get("/health")
/// #expect(try await server.stop() == .exit(0))
/// ```
final class ServerProcess: Sendable {
    /// The executables the package builds next to the test bundle.
    enum Binary: String {
        case cloudlet
        case fixture = "cloudlet-fixture"
        case workerFixture = "cloudlet-worker-fixture"

        var url: URL { ServerProcess.buildDirectory.appendingPathComponent(rawValue) }
    }

    /// How a process ended.
    enum Ending: Equatable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        var description: String {
            switch self {
            case .exit(let status): "exit(\(status))"
            case .signal(let signal): "signal(\(signal))"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What `serve` printed on start.
    struct Banner: Sendable {
        let appId: String
        let port: Int
        let mountPath: String
        let clientKey: String
        /// The master key, when this start made it or was given it; nil when it is kept hashed.
        let masterKey: String?
    }

    private let process: Mutex<Process>
    private let outputFolder: URL
    private let bannerState = Mutex<Banner?>(nil)
    let pid: Int32

    /// What `serve` printed: app id, port, mount path and keys (after ``waitForBanner(timeout:)``).
    var banner: Banner {
        guard let banner = bannerState.withLock({ $0 }) else { fatalError("the server has not printed its banner yet") }
        return banner
    }

    /// The port the server listens on.
    var port: Int { banner.port }

    private init(process: Process, outputFolder: URL) {
        self.pid = process.processIdentifier
        self.process = Mutex(process)
        self.outputFolder = outputFolder
    }

    deinit {
        killIfRunning()
        try? FileManager.default.removeItem(at: outputFolder)
    }

    // MARK: Starting

    /// Starts `binary` with `arguments`, with the soft descriptor limit `softDescriptorLimit` if
    /// given (set by a shell that then becomes the process: the test process's own stays as it is).
    /// The environment is the test's, without any `CLOUDLET_*` variable, plus `environment`.
    static func start(
        _ binary: Binary, arguments: [String], environment: [String: String] = [:], softDescriptorLimit: Int? = nil
    ) throws -> ServerProcess {
        let url = binary.url
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Failure(description: "\(url.path) is missing: build it with `swift build --product \(binary.rawValue)`")
        }
        let outputFolder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true)
        let stdoutURL = outputFolder.appendingPathComponent("stdout")
        let stderrURL = outputFolder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)

        let process = Process()
        if let softDescriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -Sn \(softDescriptorLimit) && exec \"$0\" \"$@\"", url.path] + arguments
        } else {
            process.executableURL = url
            process.arguments = arguments
        }
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CLOUDLET_") }
        variables.merge(environment) { _, new in new }
        process.environment = variables
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        return ServerProcess(process: process, outputFolder: outputFolder)
    }

    /// Starts `<binary> serve --port 0 --data <data> <arguments>` and waits until it serves and every
    /// app's workers are up (`GET /ready`): a test's first hook call runs under a limit of a few
    /// seconds, which a loaded machine can spend starting the workers. Without a
    /// `CLOUDLET_RATE_LIMIT` in `environment`, the apps' request quota is off.
    static func serve(
        _ binary: Binary, data: URL, arguments: [String] = [], environment: [String: String] = [:],
        port: Int? = 0
    ) async throws -> ServerProcess {
        var all = ["serve", "--data", data.path]
        if let port { all += ["--port", String(port)] }
        let server = try start(binary, arguments: all + arguments, environment: ["CLOUDLET_RATE_LIMIT": "off"].merging(environment) { _, given in given })
        do {
            try await server.waitForBanner()
            try await server.waitUntilReady()
        } catch {
            server.killIfRunning()
            throw error
        }
        return server
    }

    /// Waits until `GET /ready` answers 200: every app's workers are up.
    func waitUntilReady(timeout: Duration = .seconds(30)) async throws {
        let transport = Self.transport(port: port, timeout: .seconds(10))
        _ = try await poll(timeout: timeout, "the server's apps to be ready") { try await transport(.get, "/ready", [:], nil).0 == 200 ? true : nil }
    }

    /// Runs `binary` with `arguments` (and `environment` added to the test's) to its end and
    /// answers how it ended and what it printed.
    static func run(_ binary: Binary, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(20)) async throws -> (
        ending: Ending, stdout: String, stderr: String
    ) {
        let process = try start(binary, arguments: arguments, environment: environment)
        let ending = try await process.waitForExit(timeout: timeout)
        return (ending, process.stdout, process.stderr)
    }

    // MARK: Output

    /// Everything the process wrote to standard output so far.
    var stdout: String { (try? String(contentsOf: outputFolder.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }

    /// Everything the process wrote to standard error so far.
    var stderr: String { (try? String(contentsOf: outputFolder.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }

    /// Waits until the process has printed its `Cloudlet is serving …` banner with both keys.
    func waitForBanner(timeout: Duration = .seconds(20)) async throws {
        let giveUp = ContinuousClock.now + timeout
        while true {
            if let banner = Self.parseBanner(stdout) {
                bannerState.withLock { $0 = banner }
                return
            }
            if !isRunning {
                throw Failure(description: "the server ended before serving.\nstdout:\n\(stdout)\nstderr:\n\(stderr)")
            }
            guard ContinuousClock.now < giveUp else {
                throw Failure(description: "the server did not print its banner within \(timeout).\nstdout:\n\(stdout)\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func parseBanner(_ text: String) -> Banner? {
        var serving: (String, Int, String)?
        var clientKey: String?
        var masterKey: String?
        var sawMasterKey = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let match = trimmed.firstMatch(of: /Cloudlet is serving app "([^"]*)" at http:\/\/[^\/]+:(\d+)(\S*)/) {
                serving = (String(match.1), Int(match.2)!, String(match.3))
            } else if trimmed.hasPrefix("client key:") {
                clientKey = trimmed.dropFirst("client key:".count).trimmingCharacters(in: .whitespaces)
            } else if trimmed.hasPrefix("master key:") {
                masterKey = trimmed.dropFirst("master key:".count).trimmingCharacters(in: .whitespaces)
                sawMasterKey = true
            }
        }
        guard let serving, let clientKey, sawMasterKey else { return nil }
        let shown = masterKey.flatMap { $0.hasPrefix("kept hashed") ? nil : $0 }
        return Banner(appId: serving.0, port: serving.1, mountPath: serving.2, clientKey: clientKey, masterKey: shown)
    }

    // MARK: Stopping

    var isRunning: Bool { process.withLock { $0.isRunning } }

    /// Sends `signal` to the process (if it still runs).
    func send(_ signal: Int32) {
        guard isRunning else { return }
        sendSignal(signal, to: pid)
    }

    /// Asks the server to stop (SIGTERM) and waits for it to end; kills it if it does not in time.
    @discardableResult
    func stop(timeout: Duration = .seconds(15)) async throws -> Ending {
        send(SIGTERM)
        do {
            return try await waitForExit(timeout: timeout)
        } catch {
            send(SIGKILL)
            throw error
        }
    }

    /// Kills the process (SIGKILL) and waits for it to end.
    @discardableResult
    func kill() async throws -> Ending {
        send(SIGKILL)
        return try await waitForExit(timeout: .seconds(10))
    }

    /// Kills the process if it still runs, without waiting: for `defer` blocks.
    func killIfRunning() {
        send(SIGKILL)
    }

    /// Waits until the process has ended.
    func waitForExit(timeout: Duration) async throws -> Ending {
        let giveUp = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < giveUp else {
                throw Failure(description: "the process did not end within \(timeout).\nstdout:\n\(stdout)\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.withLock { process in
            process.terminationReason == .exit ? .exit(process.terminationStatus) : .signal(process.terminationStatus)
        }
    }

    // MARK: HTTP

    /// A Parse client of this server, over a real socket; by default with the printed app id and keys.
    /// It waits up to `timeout` for an answer: a bound for a server that never answers, wide enough
    /// for one that answers late on a loaded machine (the tests check what is answered, not how fast).
    func client(appId: String? = nil, clientKey: String? = nil, masterKey: String? = nil, timeout: Duration = .seconds(60)) -> ParseTestClient {
        let banner = banner
        return ParseTestClient(
            appId: appId ?? banner.appId, clientKey: clientKey ?? banner.clientKey, masterKey: masterKey ?? banner.masterKey ?? "",
            mountPath: banner.mountPath, transport: Self.transport(port: banner.port, timeout: timeout))
    }

    /// Sends each request on a new connection to `127.0.0.1:port`.
    static func transport(port: Int, timeout: Duration) -> ParseTestClient.Transport {
        { method, uri, headers, body in
            try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: timeout)) { client in
                let response = try await client.execute(TestClient.Request(uri, method: method, headers: headers, body: body))
                return (response.status.code, response.headers, response.body ?? ByteBuffer())
            }
        }
    }

    // MARK: Locations

    /// The build directory (`.build/<config>`) holding the test bundle and the package's executables.
    static let buildDirectory: URL = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        for candidate in candidates {
            var folder = candidate.standardizedFileURL
            while folder.path != "/" {
                if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent(Binary.cloudlet.rawValue).path) {
                    return folder
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        return candidates[0]
    }()

    /// A new empty folder under the temporary directory.
    static func temporaryFolder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension ParseTestClient {
    /// `GET /health`, which needs no keys.
    func health() async throws -> Reply {
        try await raw(.get, "/health", headers: [:], body: nil)
    }

    /// The `results` of a query on `className` with `where`, as master.
    func query(_ className: String, where constraints: [String: ParseValue] = [:]) async throws -> [ParseValue] {
        let reply = try await get("/classes/\(className)", query: constraints.isEmpty ? [:] : ["where": .object(constraints)], master: true)
        guard reply.status == 200, let results = reply["results"]?.arrayValue else {
            throw ServerProcess.Failure(description: "query on \(className) answered \(reply.status): \(JSONWriter.string(reply.body))")
        }
        return results
    }
}

/// Sends `signal` to the process `pid`.
private func sendSignal(_ signal: Int32, to pid: Int32) {
    _ = kill(pid, signal)
}

/// Repeats `probe` every few milliseconds until it answers a value or `timeout` passes; then the
/// failure says what `orElse` answers too.
@discardableResult
func poll<Value>(
    timeout: Duration = .seconds(10), _ what: String, _ probe: () async throws -> Value?, orElse details: () -> String = { "" }
) async throws -> Value {
    let giveUp = ContinuousClock.now + timeout
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < giveUp else { throw ServerProcess.Failure(description: "timed out waiting for \(what)\n\(details())") }
        try await Task.sleep(for: .milliseconds(50))
    }
}
