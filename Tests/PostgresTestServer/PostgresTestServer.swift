import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the tests' own, started once per test process on a free port in a new
/// folder and stopped when the process ends (a watch in the shell that runs it sees the process
/// go, however it ends). Tests share it; each uses a schema or a database of its own.
///
/// `initdb` refuses to run as root: as root, the server is made and run as the `postgres` user
/// (through util-linux's `setpriv`), owner of its folder. PostgreSQL's programs are found in `/usr/lib/postgresql/<version>/bin`
/// (Debian's `postgresql` package, which `.ci/run` installs), or else on `PATH`.
public final class PostgresTestServer: Sendable {
    /// The URL of the server's database, for ``PostgresDatabase``.
    public let url: String
    private let binaries: String
    private let port: Int

    /// The server, started at the first use.
    public static var shared: PostgresTestServer {
        get async throws { try await started.value }
    }

    /// The start, run once on a thread of its own: `initdb` and the wait for the server take
    /// seconds, which must hold up none of the threads the other tests run on.
    private static let started = Task {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresTestServer, any Error>) in
            Thread { continuation.resume(with: Result { try PostgresTestServer() }) }.start()
        }
    }

    /// A server that could not be started, with what it printed.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    private init() throws {
        let binaries = try Self.binaries()
        let asRoot = geteuid() == 0
        var template = Array("/tmp/cloudlet-postgres-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StartFailure(description: "no temporary folder for PostgreSQL") }
        let folder = String(cString: made)
        if asRoot { try Self.run("/bin/chown", ["postgres:postgres", folder]) }
        // `setpriv` runs the program in its own place (where `runuser` would wait for it as a
        // parent), so that the shell below signals the server itself.
        let prefix = asRoot ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] : []
        try Self.run(prefix + ["\(binaries)/initdb", "-D", "\(folder)/data", "-U", "cloudlet", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"], in: folder)
        let port = try Self.freePort()
        // The server in the foreground of a shell that stops it once this process is gone.
        let server = ([
            "\(binaries)/postgres", "-D", "\(folder)/data", "-p", "\(port)", "-k", folder, "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "max_connections=200",
        ]).map { "'\($0)'" }.joined(separator: " ")
        let runner = (prefix.map { "'\($0)'" } + [server]).joined(separator: " ")
        let script = """
            \(runner) >'\(folder)/server.log' 2>&1 &
            server=$!
            while [ -d /proc/\(getpid()) ]; do sleep 0.5; done
            kill -INT $server; wait $server; rm -rf '\(folder)'
            """
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script]
        // Holding none of this process's output open: `swift test` reads it to its end.
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = FileHandle.nullDevice
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        url = "postgres://cloudlet@127.0.0.1:\(port)/postgres?sslmode=disable"
        self.binaries = binaries
        self.port = port
        for _ in 0..<300 {
            if (try? Self.run(["\(binaries)/pg_isready", "-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil { return }
            usleep(100_000)
        }
        let log = (try? String(contentsOfFile: "\(folder)/server.log", encoding: .utf8)) ?? ""
        throw StartFailure(description: "PostgreSQL did not start on port \(port) in 30 s: \(log)")
    }

    /// The URL of a new, empty database on the server, for a test whose nodes share one of their own.
    public func newDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.prefix(8).lowercased()
        try Self.run(["\(binaries)/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "cloudlet", name])
        return url.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }

    /// The folder of PostgreSQL's programs: Debian's newest, or the one holding `initdb` on `PATH`.
    private static func binaries() throws -> String {
        let debian = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: debian)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last { return "\(debian)/\(newest)/bin" }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(folder)/initdb") {
            return String(folder)
        }
        throw StartFailure(description: "no PostgreSQL here: install Debian's postgresql package (.ci/run does)")
    }

    /// Runs `arguments` to its end; throws what it printed if it fails.
    @discardableResult
    private static func run(_ command: String, _ arguments: [String]) throws -> Int32 {
        try run([command] + arguments)
    }

    @discardableResult
    private static func run(_ arguments: [String], in folder: String? = nil) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StartFailure(description: "\(arguments.joined(separator: " ")) failed: \(String(decoding: printed, as: UTF8.self))")
        }
        return process.terminationStatus
    }

    /// A TCP port no one listens on now.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw StartFailure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
