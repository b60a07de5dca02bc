import AsyncHTTPClient
import Foundation
import LoadSupport
import NIOCore
import NIOHTTP1

/// Uploads and downloads against the benchmark server over `connections` HTTP/1.1 connections.
struct FileTraffic {
    let client: HTTPClient
    let base: String

    init(port: Int, connections: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        base = "http://127.0.0.1:\(port)"
    }

    /// `POST` of `size` bytes to `path` (a file upload, or the bare sink), sent in 64 KiB chunks as
    /// they are made, never held whole; answers the response's body.
    func upload(_ path: String, size: Int) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "X-Parse-Application-Id", value: BenchmarkServer.appId)
        request.headers.add(name: "X-Parse-REST-API-Key", value: BenchmarkServer.clientKey)
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .stream(Chunks(total: size), length: .known(Int64(size)))
        let response = try await client.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw BenchmarkFailure("POST \(path) answered \(response.status.code): \(String(buffer: body))")
        }
        return body
    }

    /// `GET` of `path`, reading the body chunk by chunk; answers how many bytes came.
    func download(_ path: String) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(600))
        guard response.status == .ok else { throw BenchmarkFailure("GET \(path) answered \(response.status.code)") }
        var count = 0
        for try await chunk in response.body { count += chunk.readableBytes }
        return count
    }

    /// Runs `requests` requests of `size` bytes each on `connections` connections at once with
    /// `send`; answers MiB/s and requests/s over the wall time.
    static func throughput(
        connections: Int, requests: Int, size: Int, _ send: @escaping @Sendable () async throws -> Void
    ) async throws -> (mebibytesPerSecond: Double, requestsPerSecond: Double) {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in 0..<connections {
                let share = requests / connections + (connection < requests % connections ? 1 : 0)
                group.addTask { for _ in 0..<share { try await send() } }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (Double(requests * size) / Double(1 << 20) / seconds, Double(requests) / seconds)
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}

/// `total` bytes as 64 KiB chunks, made one at a time.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let total: Int
    static let chunk = ByteBuffer(repeating: 0xA5, count: 64 << 10)

    struct AsyncIterator: AsyncIteratorProtocol {
        var left: Int
        mutating func next() async -> ByteBuffer? {
            guard left > 0 else { return nil }
            let size = Swift.min(left, Chunks.chunk.readableBytes)
            left -= size
            return Chunks.chunk.getSlice(at: 0, length: size)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: total) }
}
