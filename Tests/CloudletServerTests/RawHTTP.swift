import Foundation
import Glibc

/// Sends raw bytes over a plain TCP socket, for requests an HTTP client library will not send.
enum RawHTTP {
    /// Runs `body`, which blocks on a socket, on a thread of its own: a test that blocked one of the
    /// few threads Swift concurrency runs on could starve the server it waits for when tests run
    /// side by side.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `request` to `127.0.0.1:port` and reads until the server closes the connection (or
    /// `seconds` pass without a byte); a write the server cut short by closing is not an error.
    static func exchange(port: Int, _ request: String, seconds: Int = 5) throws -> String {
        try exchangeNotingClose(port: port, request, seconds: seconds).answer
    }

    /// ``exchange(port:_:seconds:)``, and whether the server closed the connection (rather than
    /// `seconds` passing without a byte).
    static func exchangeNotingClose(port: Int, _ request: String, seconds: Int = 5) throws -> (answer: String, closed: Bool) {
        let socket = try connectedSocket(port: port)
        defer { close(socket) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }
            sent += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var count = 0
        repeat {
            count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { answer += buffer[..<count] }
        } while count > 0
        return (String(decoding: answer, as: UTF8.self), count == 0)
    }
}

extension RawHTTP {
    /// A TCP socket connected to `127.0.0.1:port`; the caller closes it.
    static func connectedSocket(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "connect: \(errno)")
        }
        return socket
    }

    /// One TCP connection to `127.0.0.1:port` that stays open between writes, for requests whose
    /// body is sent late or never.
    final class Connection {
        private let socket: Int32

        init(port: Int) throws {
            socket = try RawHTTP.connectedSocket(port: port)
        }

        deinit { close(socket) }

        func send(_ text: String) throws {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw Failure(description: "send: \(errno)") }
                sent += written
            }
        }

        /// The first answer on the connection, head and `Content-Length` body, without waiting for
        /// the connection to close; nil when it does not come whole within `seconds`.
        func answer(seconds: Int = 5) -> String? {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let text = String(decoding: answer, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n"),
                    let length = text[..<end.lowerBound].firstMatch(of: /(?i)content-length: *(\d+)/).flatMap({ Int($0.1) }),
                    text.utf8.count - text[..<end.upperBound].utf8.count >= length
                {
                    return text
                }
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { return nil }
                answer += buffer[..<count]
            }
        }
    }
}
