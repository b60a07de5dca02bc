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
@Suite("Connection bounds and timeouts", .serialized, .tags(.timing))
struct ConnectionLimitsTests {
    /// Runs `body` with a live server (app `a`) under `limits`, its metrics and its port.
    static func withLiveServer(_ limits: ConnectionLimits, _ body: @Sendable (CloudletMetrics, Int) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-connections-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let metrics = CloudletMetrics()
        var configuration = ServerConfiguration(port: 0, dataDirectory: folder.path, passwordHashCost: 4)
        configuration.connections = limits
        let server = try CloudletApplication(
            configuration: configuration,
            apps: [AppDefinition(id: "a", executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "client-a", masterKey: "master-a")],
            logger: logger, metrics: metrics)
        try await server.application().test(.live) { client in try await body(metrics, client.port!) }
    }

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
        try await Self.withLiveServer(ConnectionLimits(idleTimeout: .seconds(60), headerTimeout: .milliseconds(300))) { metrics, port in
            let slow = try RawConnection(port: port)
            slow.send("GET /health HTTP/1.1\r\nX-a: ")
            let (answer, closed) = slow.readUntilClosed(seconds: 10)
            #expect(closed && answer.isEmpty)
            #expect(Self.timedOut(metrics, "head") == 1)
            // A head sent byte by byte, each byte well inside the timeout, is closed all the same.
            let trickle = try RawConnection(port: port)
            let bytes = "GET /health HTTP/1.1\r\nX-a: " + String(repeating: "a", count: 40)
            var sent = 0
            while sent < bytes.count, trickle.send(String(bytes.dropFirst(sent).prefix(1))) {
                sent += 1
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(sent < bytes.count)
            let fresh = try RawConnection(port: port)
            fresh.send(Self.health)
            #expect(fresh.readAnswer().hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func aConnectionWithNoRequestIsClosedAfterTheIdleTimeout() async throws {
        try await Self.withLiveServer(ConnectionLimits(idleTimeout: .milliseconds(300), headerTimeout: .seconds(60))) { metrics, port in
            let kept = try RawConnection(port: port)
            kept.send(Self.health)
            #expect(kept.readAnswer().hasPrefix("HTTP/1.1 200"))
            #expect(kept.readUntilClosed(seconds: 10) == ("", true))
            let silent = try RawConnection(port: port)
            #expect(silent.readUntilClosed(seconds: 10) == ("", true))
            // The test harness's own client connection, idle too, is closed as well.
            #expect(Self.timedOut(metrics, "idle") >= 2)
        }
    }

    @Test func aBodyThatTricklesIsClosedAndAWholeOneIsServed() async throws {
        let limits = ConnectionLimits(idleTimeout: .seconds(60), headerTimeout: .milliseconds(300), minimumBodyBytesPerSecond: 1000)
        try await Self.withLiveServer(limits) { metrics, port in
            let head = Self.saveHead
            let trickle = try RawConnection(port: port)
            trickle.send(head + "Content-Length: 100000\r\n\r\n{\"n\": \"")
            var sent = 0
            while sent < 100, trickle.send("abc") {
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(sent < 100)
            #expect(Self.timedOut(metrics, "body") == 1)
            let body = "{\"n\": \"" + String(repeating: "a", count: 100_000) + "\"}"
            let whole = try RawConnection(port: port)
            whole.send(head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            #expect(whole.readAnswer().hasPrefix("HTTP/1.1 201"))
        }
    }

    @Test func anAnswerTheClientLeavesUnreadIsClosedAfterTheIdleTimeout() async throws {
        try await Self.withLiveServer(ConnectionLimits(idleTimeout: .milliseconds(300))) { metrics, port in
            let body = "{\"text\": \"" + String(repeating: "a", count: 900_000) + "\"}"
            for _ in 0..<10 {
                let save = try RawConnection(port: port)
                save.send(Self.saveHead + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
                #expect(save.readAnswer().hasPrefix("HTTP/1.1 201"))
            }
            // 9 MB to answer, more than the sockets' buffers take.
            let reader = try RawConnection(port: port, receiveBuffer: 4096)
            reader.send("GET /parse/classes/Posts HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: a\r\nX-Parse-REST-API-Key: client-a\r\n\r\n")
            try await Task.sleep(for: .seconds(2))
            let (answer, closed) = reader.readUntilClosed()
            #expect(closed && answer.utf8.count < 9_000_000, "\(answer.utf8.count) bytes")
            #expect(Self.timedOut(metrics, "unread") == 1)
        }
    }

    @Test func connectionsPastTheBoundOfAnAddressAreRefusedWhileOtherAddressesAreServed() async throws {
        try await Self.withLiveServer(ConnectionLimits(maximumConnectionsPerAddress: 4)) { metrics, port in
            // From an address of its own: the test harness's client holds a connection from 127.0.0.1.
            var held = try (0..<4).map { _ in try RawConnection(port: port, from: "127.0.0.5") }
            for connection in held {
                connection.send(Self.health)
                #expect(connection.readAnswer().hasPrefix("HTTP/1.1 200"))
            }
            let refused = try RawConnection(port: port, from: "127.0.0.5")
            let (answer, closed) = refused.readUntilClosed()
            #expect(closed && answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.hasSuffix(#"{"code":155,"error":"too many connections open from this address"}"#))
            let other = try RawConnection(port: port, from: "127.0.0.2")
            other.send(Self.health)
            #expect(other.readAnswer().hasPrefix("HTTP/1.1 200"))
            #expect(Self.refused(metrics, "address") == 1)
            // A connection closed gives its place back.
            held.removeLast()
            try await Task.sleep(for: .milliseconds(200))
            let again = try RawConnection(port: port, from: "127.0.0.5")
            again.send(Self.health)
            #expect(again.readAnswer().hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func connectionsPastTheServersBoundAreRefused() async throws {
        // The test harness's client holds the fourth connection.
        try await Self.withLiveServer(ConnectionLimits(maximumConnections: 4)) { metrics, port in
            let held = try ["127.0.0.1", "127.0.0.2", "127.0.0.3"].map { try RawConnection(port: port, from: $0) }
            for connection in held {
                connection.send(Self.health)
                #expect(connection.readAnswer().hasPrefix("HTTP/1.1 200"))
            }
            let (answer, closed) = try RawConnection(port: port, from: "127.0.0.4").readUntilClosed()
            #expect(closed && answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.contains("the server has too many connections open"))
            #expect(Self.refused(metrics, "total") == 1)
        }
    }
}
