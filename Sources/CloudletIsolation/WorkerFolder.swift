import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folders workers write to, and what a host that ended without stopping its workers (killed,
/// crashed) leaves behind there.
///
/// A worker's folder (its working directory and `HOME`) is kept across starts: hooks may keep files
/// there on purpose. Its `tmp` folder, the worker's `TMPDIR`, is emptied at each start of the host.
public enum WorkerFolder {
    /// The `TMPDIR` of the workers whose folder is `folder`.
    static func temporaryFolder(of folder: String) -> String {
        URL(fileURLWithPath: folder).appendingPathComponent("tmp").path
    }

    /// Creates `folder` and its temporary folder, if missing, readable by the host's user alone.
    static func prepare(_ folder: String) throws {
        try FileManager.default.createDirectory(
            atPath: temporaryFolder(of: folder), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
    }

    /// Removes what an earlier run of a host on `dataDirectory` left behind: every app's workers'
    /// temporary files (`workers/<app>/tmp`), and the sockets earlier versions listened on for their
    /// workers (`cloudlet-<app>-<random>.sock` in the system's temporary folder) on which no process
    /// listens any more. Call at start, before any worker pool launches. Answers what it removed.
    @discardableResult
    public static func removeLeftovers(dataDirectory: String) -> [String] {
        let workers = URL(fileURLWithPath: dataDirectory).appendingPathComponent("workers")
        let apps = (try? FileManager.default.contentsOfDirectory(atPath: workers.path)) ?? []
        let temporaryFolders = apps.map { temporaryFolder(of: workers.appendingPathComponent($0).path) }.filter {
            FileManager.default.fileExists(atPath: $0)
        }
        let system = FileManager.default.temporaryDirectory
        let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? [])
            .filter { $0.hasPrefix("cloudlet-") && $0.hasSuffix(".sock") }
            .map { system.appendingPathComponent($0).path }
            .filter(isAbandonedSocket)
        let leftovers = temporaryFolders + sockets
        for path in leftovers { try? FileManager.default.removeItem(atPath: path) }
        return leftovers
    }

    /// Whether `path` is a Unix-domain socket on which no process listens.
    private static func isAbandonedSocket(_ path: String) -> Bool {
        guard (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeSocket else { return false }
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return connected != 0 && errno == ECONNREFUSED
    }
}
