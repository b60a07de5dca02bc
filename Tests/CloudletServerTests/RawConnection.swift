import Foundation
import Glibc

/// One plain TCP connection to `127.0.0.1:port`, for requests an HTTP client library will not
/// send: held open, sent in pieces or never finished, pipelined, from a chosen loopback address.
///
/// Every call that can wait on the socket runs on a thread of its own: a test that blocked one of
/// the few threads Swift concurrency runs on would starve the servers of the tests beside it.
final class RawConnection: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let socket: Int32

    /// Connects to `127.0.0.1:port` from `source` (any address of 127.0.0.0/8), with a receive
    /// buffer of `receiveBuffer` bytes if given (a client slow to take answers).
    init(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) async throws {
        socket = try await Self.onOwnThread { Result { try Self.connect(port: port, from: source, receiveBuffer: receiveBuffer) } }.get()
    }

    deinit { close(socket) }

    /// Writes `request` to a new connection and reads until the server closes it or `seconds`
    /// pass without a byte; a write the server cut short by closing is not an error.
    static func exchange(port: Int, _ request: String, seconds: Int = 5) async throws -> (answer: String, closed: Bool) {
        let connection = try await RawConnection(port: port)
        await connection.send(request)
        return await connection.readUntilClosed(seconds: seconds)
    }

    /// Sends `text`; false if the server has closed the connection.
    @discardableResult
    func send(_ text: String) async -> Bool {
        await send(bytes: Array(text.utf8))
    }

    /// Sends `bytes`; false if the server has closed the connection.
    @discardableResult
    func send(bytes: [UInt8]) async -> Bool {
        await Self.onOwnThread { [socket] in
            var sent = 0
            while sent < bytes.count {
                let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return false }
                sent += written
            }
            return true
        }
    }

    /// Reads until the server closes the connection or `seconds` pass without a byte: what arrived,
    /// and whether the server closed the connection.
    func readUntilClosed(seconds: Int = 5) async -> (answer: String, closed: Bool) {
        await read(seconds: seconds) { _ in false }
    }

    /// Reads the first answer, its head and a `Content-Length` body, without waiting for the
    /// connection to close: the answer, or what arrived before `seconds` passed without a byte
    /// (empty if nothing did).
    func answer(seconds: Int = 5) async -> String {
        await read(seconds: seconds, until: Self.isWhole).answer
    }

    /// Reads until `done` holds for what arrived, the server closes the connection or `seconds`
    /// pass without a byte.
    private func read(seconds: Int, until done: @escaping @Sendable ([UInt8]) -> Bool) async -> (answer: String, closed: Bool) {
        await Self.onOwnThread { [socket] in
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !done(answer) {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else {
                    return (String(decoding: answer, as: UTF8.self), count == 0 || errno == ECONNRESET)
                }
                answer += buffer[..<count]
            }
            return (String(decoding: answer, as: UTF8.self), false)
        }
    }

    /// Whether `bytes` hold a whole head and as many bytes after it as its `Content-Length` says.
    private static func isWhole(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let length = text[..<end.lowerBound].firstMatch(of: /(?i)content-length: *(\d+)/).flatMap { Int($0.1) } ?? 0
        return text.utf8.distance(from: end.upperBound, to: text.endIndex) >= length
    }

    /// Runs `body`, which blocks on a socket, on a thread of its own.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    private static func connect(port: Int, from source: String, receiveBuffer: Int32?) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        if var receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = address(source, port: 0)
        var server = address("127.0.0.1", port: port)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(socket)
            throw Failure(description: "bind or connect: \(errno)")
        }
        return socket
    }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(text)
        return address
    }
}
