import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock a server holds on its data folder for as long as it runs (`serve.lock`, an exclusive
/// `flock` the kernel drops when the process ends, however it ends), so that two servers never
/// serve one folder. Holding it, a server knows that work the queues show leased to another
/// process was left by one that has ended (``WorkSettings/soleHolder``).
///
/// ```swift
/// let lock = try DataFolderLock(dataDirectory: "./data")   // held until `lock` is released
/// ```
public final class DataFolderLock: Sendable {
    /// The lock file, in the data folder.
    public static let fileName = "serve.lock"

    private let descriptor: Int32

    /// Takes the lock on `dataDirectory` (created if needed), writing this process's id into the
    /// file; throws when another process holds it, naming that process.
    public init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(Self.fileName).path
        // Not inherited by worker processes, which could otherwise keep it past the server's end.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            let who = holder.map { $0.isEmpty ? "another process" : "process \($0)" } ?? "another process"
            throw Failure(description: "the data folder \(dataDirectory) is served by \(who) already (\(path) is locked)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// Why the lock was not taken, said for the operator.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    deinit {
        close(descriptor)
    }
}
