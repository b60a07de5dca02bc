import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Connections that hold the server without using it are closed, and connections past the
/// server's bounds are refused at once, over real sockets.
@Suite("Connection bounds and timeouts", .timing)
struct ConnectionLimitsTests {
    static let health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    /// The head of a save of app `a`, but for its `Content-Length`.
    static let saveHead =
        "POST /parse/classes/Posts HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: a\r\nX-Parse-REST-API-Key: client-a\r\n"
        + "Content-Type: application/json\r\n"

    /// The value of counter `name` with label `reason`, 0 if it has not been counted.
    static func count(_ metrics: CloudletMetrics, _ name: String, reason: String) -> Int {
        let prefix = "\(name){reason=\"\(reason)\"} "
        let line = String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    static func timedOut(_ metrics: CloudletMetrics, _ reason: String) -> Int {
        count(metrics, "cloudlet_connections_timed_out_total", reason: reason)
    }

    static func refused(_ metrics: CloudletMetrics, _ reason: String) -> Int {
        count(metrics, "cloudlet_connections_refused_total", reason: reason)
    }

    @Test func aRequestHeadThatNeverEndsIsClosedAfterTheHeaderTimeout() async throws {
        let limits = ConnectionLimits(idleTimeout: .seconds(60), headerTimeout: .milliseconds(300))
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            let slow = try await RawConnection(port: server.port)
            await slow.send("GET /health HTTP/1.1\r\nX-a: ")
            let (answer, closed) = await slow.readUntilClosed(seconds: 10)
            #expect(closed && answer.isEmpty)
            #expect(Self.timedOut(server.metrics, "head") == 1)
            // A head sent byte by byte, each byte well inside the timeout, is closed all the same.
            let trickle = try await RawConnection(port: server.port)
            let bytes = "GET /health HTTP/1.1\r\nX-a: " + String(repeating: "a", count: 40)
            var sent = 0
            while sent < bytes.count, await trickle.send(String(bytes.dropFirst(sent).prefix(1))) {
                sent += 1
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(sent < bytes.count)
            let fresh = try await RawConnection(port: server.port)
            await fresh.send(Self.health)
            #expect(await fresh.answer().hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func aConnectionWithNoRequestIsClosedAfterTheIdleTimeout() async throws {
        let limits = ConnectionLimits(idleTimeout: .milliseconds(300), headerTimeout: .seconds(60))
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            let kept = try await RawConnection(port: server.port)
            await kept.send(Self.health)
            #expect(await kept.answer().hasPrefix("HTTP/1.1 200"))
            #expect(await kept.readUntilClosed(seconds: 10) == ("", true))
            let silent = try await RawConnection(port: server.port)
            #expect(await silent.readUntilClosed(seconds: 10) == ("", true))
            // The test harness's own client connection, idle too, is closed as well.
            #expect(Self.timedOut(server.metrics, "idle") >= 2)
        }
    }

    @Test func aBodyThatTricklesIsClosedAndAWholeOneIsServed() async throws {
        let limits = ConnectionLimits(idleTimeout: .seconds(60), headerTimeout: .milliseconds(300), minimumBodyBytesPerSecond: 1000)
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            let head = Self.saveHead
            let trickle = try await RawConnection(port: server.port)
            await trickle.send(head + "Content-Length: 100000\r\n\r\n{\"n\": \"")
            var sent = 0
            while sent < 100, await trickle.send("abc") {
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(sent < 100)
            #expect(Self.timedOut(server.metrics, "body") == 1)
            let body = "{\"n\": \"" + String(repeating: "a", count: 100_000) + "\"}"
            let whole = try await RawConnection(port: server.port)
            await whole.send(head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            #expect(await whole.answer().hasPrefix("HTTP/1.1 201"))
        }
    }

    @Test func anAnswerTheClientLeavesUnreadIsClosedAfterTheIdleTimeout() async throws {
        let limits = ConnectionLimits(idleTimeout: .milliseconds(300))
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            let body = "{\"text\": \"" + String(repeating: "a", count: 900_000) + "\"}"
            for _ in 0..<10 {
                let save = try await RawConnection(port: server.port)
                await save.send(Self.saveHead + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
                #expect(await save.answer().hasPrefix("HTTP/1.1 201"))
            }
            // 9 MB to answer, more than the sockets' buffers take.
            let reader = try await RawConnection(port: server.port, receiveBuffer: 4096)
            await reader.send("GET /parse/classes/Posts HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: a\r\nX-Parse-REST-API-Key: client-a\r\n\r\n")
            // Unread, the answer stalls: the server closes the connection once it has waited the
            // idle timeout, however long it took to start answering.
            try await Support.eventually(timeout: .seconds(30)) { Self.timedOut(server.metrics, "unread") == 1 }
            let (answer, closed) = await reader.readUntilClosed()
            #expect(closed && answer.utf8.count < 9_000_000, "\(answer.utf8.count) bytes")
        }
    }

    @Test func connectionsPastTheBoundOfAnAddressAreRefusedWhileOtherAddressesAreServed() async throws {
        let limits = ConnectionLimits(maximumConnectionsPerAddress: 4)
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            // From an address of its own: the test harness's client holds a connection from 127.0.0.1.
            var held: [RawConnection] = []
            for _ in 0..<4 { held.append(try await RawConnection(port: server.port, from: "127.0.0.5")) }
            for connection in held {
                await connection.send(Self.health)
                #expect(await connection.answer().hasPrefix("HTTP/1.1 200"))
            }
            let refused = try await RawConnection(port: server.port, from: "127.0.0.5")
            let (answer, closed) = await refused.readUntilClosed()
            #expect(closed && answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.hasSuffix(#"{"code":155,"error":"too many connections open from this address"}"#))
            let other = try await RawConnection(port: server.port, from: "127.0.0.2")
            await other.send(Self.health)
            #expect(await other.answer().hasPrefix("HTTP/1.1 200"))
            #expect(Self.refused(server.metrics, "address") == 1)
            // A connection closed gives its place back.
            held.removeLast()
            try await Task.sleep(for: .milliseconds(200))
            let again = try await RawConnection(port: server.port, from: "127.0.0.5")
            await again.send(Self.health)
            #expect(await again.answer().hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func connectionsPastTheServersBoundAreRefused() async throws {
        // The test harness's client holds the fourth connection.
        let limits = ConnectionLimits(maximumConnections: 4)
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            var held: [RawConnection] = []
            for address in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
                let connection = try await RawConnection(port: server.port, from: address)
                held.append(connection)
                await connection.send(Self.health)
                #expect(await connection.answer().hasPrefix("HTTP/1.1 200"))
            }
            let (answer, closed) = try await RawConnection(port: server.port, from: "127.0.0.4").readUntilClosed()
            #expect(closed && answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.contains("the server has too many connections open"))
            #expect(Self.refused(server.metrics, "total") == 1)
        }
    }
}
