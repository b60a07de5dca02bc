import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProcessTests.IsolationTests {
    @Test func whatAKilledHostLeftBehindIsRemovedAtStart() async throws {
        let data = try ServerProcess.temporaryFolder("leftovers")
        defer { try? FileManager.default.removeItem(at: data) }
        let temporary = data.appendingPathComponent("workers/fixture/tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let leftover = temporary.appendingPathComponent("half-written").path
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data("partial".utf8)))
        let kept = data.appendingPathComponent("workers/fixture/kept").path
        #expect(FileManager.default.createFile(atPath: kept, contents: Data("on purpose".utf8)))
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-fixture-\(UInt32.random(in: 0...UInt32.max)).sock").path
        try abandonedSocket(at: socket)
        defer { unlink(socket) }

        let server = try await ServerProcess.serve(.fixture, data: data, arguments: ["--app-id", "fixture", "--workers", "1"])
        defer { server.killIfRunning() }
        #expect(!FileManager.default.fileExists(atPath: leftover), "the workers' temporary files of the last run are removed")
        #expect(!FileManager.default.fileExists(atPath: socket), "a worker socket nobody listens on is removed")
        #expect(FileManager.default.fileExists(atPath: kept), "the worker's own folder is kept")
        let found = try await server.client().post("/functions/snoop", ["paths": []])
        #expect(found["result"]?["environment"]?["TMPDIR"]?.stringValue.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
            == temporary.resolvingSymlinksInPath().path)
    }
}

/// Leaves a Unix-domain socket file at `path` on which nothing listens, as a host killed while
/// listening on it would.
private func abandonedSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(descriptor, 1) == 0 else { throw ServerProcess.Failure(description: "could not bind \(path): errno \(errno)") }
}
