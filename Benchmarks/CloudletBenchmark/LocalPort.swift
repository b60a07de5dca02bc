import Foundation
import LoadSupport
import Glibc

/// Ports of 127.0.0.1, for a server that must be told which one to listen on.
enum LocalPort {
    /// A port nothing listens on now: one the system picks for a socket bound and closed at once.
    static func free() throws -> Int {
        let socket = try openSocket()
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure("no free port on 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a server accepts connections on `port`.
    static func accepts(_ port: Int) -> Bool {
        guard let socket = try? openSocket() else { return false }
        defer { close(socket) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func openSocket() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket: errno \(errno)") }
        return socket
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
