import Cloudlet
import Foundation
import LoadSupport
import NIOCore

/// The three measurements, each beside its baseline, printed as they finish.
struct FilesBenchmark {
    let perConnection: Int
    let connections: Int
    let largeMebibytes: Int
    static let fileSize = 5 << 20

    func run() async throws {
        let server = try ServerProcess()
        let traffic = FileTraffic(port: server.port, connections: connections)
        defer { server.stop() }
        let requests = perConnection * connections
        report("\(connections) connections, \(requests) requests of 5 MiB each way; server pid \(server.process.processIdentifier)")
        report("idle server: \(Self.mebibytes(server.memory.resident)) resident")

        let bareUp = try await FileTraffic.throughput(connections: connections, requests: requests, size: Self.fileSize) {
            _ = try await traffic.upload("/bare/sink", size: Self.fileSize)
        }
        let filesUp = try await FileTraffic.throughput(connections: connections, requests: requests, size: Self.fileSize) {
            _ = try await traffic.upload("/parse/files/five.bin", size: Self.fileSize)
        }
        report(Self.line("upload", filesUp, bareUp))

        let stored = try JSONParser.parse(Array(try await traffic.upload("/parse/files/five.bin", size: Self.fileSize).readableBytesView))
        guard let url = stored["url"]?.stringValue, let path = URL(string: url)?.path else {
            throw BenchmarkFailure("the upload answered \(stored)")
        }
        let bareDown = try await FileTraffic.throughput(connections: connections, requests: requests, size: Self.fileSize) {
            guard try await traffic.download("/bare/source") == Self.fileSize else { throw BenchmarkFailure("short bare download") }
        }
        let filesDown = try await FileTraffic.throughput(connections: connections, requests: requests, size: Self.fileSize) {
            guard try await traffic.download(path) == Self.fileSize else { throw BenchmarkFailure("short file download") }
        }
        report(Self.line("download", filesDown, bareDown))

        let large = largeMebibytes << 20
        for (label, path) in [("bare sink", "/bare/sink"), ("files", "/parse/files/large.bin")] {
            let before = server.memory.resident
            server.resetPeak()
            _ = try await FileTraffic.throughput(connections: connections, requests: connections, size: large) {
                _ = try await traffic.upload(path, size: large)
            }
            let peak = server.memory.peak
            report(
                "\(connections) × \(largeMebibytes) MiB uploads at once, \(label): server peak \(Self.mebibytes(peak)) "
                    + "(resident before \(Self.mebibytes(before)), +\(Self.mebibytes(peak - before)))")
        }
        try await traffic.shutdown()
    }

    static func line(_ label: String, _ files: (mebibytesPerSecond: Double, requestsPerSecond: Double), _ bare: (mebibytesPerSecond: Double, requestsPerSecond: Double)) -> String {
        String(
            format: "%@: files %.0f MiB/s (%.1f/s), bare route %.0f MiB/s (%.1f/s), ratio %.2f", label, files.mebibytesPerSecond,
            files.requestsPerSecond, bare.mebibytesPerSecond, bare.requestsPerSecond, files.mebibytesPerSecond / bare.mebibytesPerSecond)
    }

    static func mebibytes(_ value: Double) -> String { String(format: "%.0f MiB", value) }

    /// Writes `line` to standard output at once (so that it is there even if a later step fails).
    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
