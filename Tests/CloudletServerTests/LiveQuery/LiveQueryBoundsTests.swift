import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

/// LiveQuery's bounds over real sockets: a WebSocket that never connects, too many connections of
/// an app, subscriptions of a connection or messages, frames too large, a client that never
/// reads its events, and one that stops answering pings.
@Suite("LiveQuery bounds", .timing)
struct LiveQueryBoundsTests {
    typealias Fixture = LiveQueryFixture

    @Test("a WebSocket that sends no connect within the connect timeout is closed; one that connects is not held to it")
    func connectTimeout() async throws {
        try await Fixture.with(adjust: { $0.liveQuery.connectTimeout = .milliseconds(300) }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { silent in
                #expect(await silent.closed(within: .seconds(10)))
            }
            #expect(fixture.metric("cloudlet_livequery_refusals_total", #"reason="connect_timeout""#) == 1)
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                #expect(await socket.connect()?["op"] == "connected")
                try await Task.sleep(for: .milliseconds(600))
                #expect(await socket.subscribe(1, "Message")?["op"] == "subscribed")
            }
        }
    }

    @Test("an app's connections past its bound are refused with 155 and reconnect; a connection closed gives its place back")
    func connectionsPerApp() async throws {
        try await Fixture.with(adjust: { $0.liveQuery.maximumConnectionsPerApp = 2 }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { first in
                #expect(await first.connect()?["op"] == "connected")
                try await LiveQuerySocket.with(port: fixture.port) { second in
                    #expect(await second.connect()?["op"] == "connected")
                    #expect(fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 2)
                    try await LiveQuerySocket.with(port: fixture.port) { third in
                        let refused = try #require(await third.connect())
                        #expect(refused["code"] == 155 && refused["reconnect"] == true, "\(refused)")
                    }
                }
                try await Support.eventually { fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 1 }
                try await LiveQuerySocket.with(port: fixture.port) { again in
                    #expect(await again.connect()?["op"] == "connected")
                }
            }
        }
    }

    @Test("a thousand subscribes: the connection's bound holds, each one over it refused with 155, the others and the connection unharmed")
    func thousandSubscribes() async throws {
        try await Fixture.with(adjust: {
            $0.liveQuery.maximumSubscriptionsPerConnection = 10
            $0.liveQuery.messagesPerConnection = RateLimitQuota(perSecond: 100_000, burst: 2_000)
        }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                for id in 1...1000 { socket.send(["op": "subscribe", "requestId": .number(Double(id)), "query": ["className": "Message", "where": [:]]]) }
                var subscribed = 0, refused = 0
                for _ in 1...1000 {
                    let answer = try #require(await socket.next())
                    if answer["op"] == "subscribed" { subscribed += 1 } else if answer["code"] == 155 { refused += 1 }
                }
                #expect(subscribed == 10 && refused == 990)
                #expect(fixture.metric("cloudlet_livequery_subscriptions", #"app="a""#) == 10)
                fixture.publish(.create, Fixture.message("m1", [:]))
                var events = 0
                for _ in 0..<10 where await socket.next()?["op"] == "create" { events += 1 }
                #expect(events == 10)
            }
        }
    }

    @Test("messages past a connection's pace are refused with 155 without being read")
    func messagePace() async throws {
        try await Fixture.with(adjust: { $0.liveQuery.messagesPerConnection = RateLimitQuota(count: 5, window: .seconds(60)) }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                for _ in 0..<20 { socket.send(["op": "explode"]) }
                var codes: [Int] = []
                for _ in 0..<20 { codes.append(try #require(await socket.next()?["code"]?.intValue)) }
                #expect(codes == Array(repeating: 3, count: 5) + Array(repeating: 155, count: 15))
                #expect(fixture.metric("cloudlet_livequery_refusals_total", #"reason="messages""#) == 15)
            }
        }
    }

    @Test("a message larger than the bound closes the connection")
    func hugeMessage() async throws {
        try await Fixture.with(adjust: { $0.liveQuery.maximumMessageBytes = 4096 }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                #expect(await socket.connect()?["op"] == "connected")
                socket.send(text: #"{"op":"connect","applicationId":""# + String(repeating: "a", count: 100_000) + #""}"#)
                #expect(await socket.closed(within: .seconds(10)))
            }
            try await Support.eventually { fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 0 }
        }
    }

    @Test("a client that never reads is disconnected once its queue is full, and the app's other clients go on")
    func clientThatNeverReads() async throws {
        try await Fixture.with(adjust: {
            $0.liveQuery.maximumQueuedBytes = 256 << 10
            $0.connections.idleTimeout = .seconds(60)
        }) { fixture in
            let stalled = try await RawConnection(port: fixture.port, receiveBuffer: 4096)
            await stalled.send(
                "GET /parse HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            await stalled.send(bytes: Self.frame(#"{"op":"connect","applicationId":"a","clientKey":"client-a"}"#))
            await stalled.send(bytes: Self.frame(#"{"op":"subscribe","requestId":1,"query":{"className":"Message","where":{}}}"#))
            try await Support.eventually { fixture.metric("cloudlet_livequery_subscriptions", #"app="a""#) == 1 }
            try await LiveQuerySocket.with(port: fixture.port) { reader in
                _ = await reader.connect()
                _ = await reader.subscribe(1, "Message", where: ["n": 0])
                let text = ParseValue.string(String(repeating: "x", count: 10_000))
                // 40 MB of events for the stalled client, far more than the socket buffers and its queue hold.
                for n in 1...4000 { fixture.publish(.create, Fixture.message("m\(n)", ["n": .number(Double(n)), "text": text])) }
                try await Support.eventually(timeout: .seconds(30)) {
                    fixture.metric("cloudlet_livequery_refusals_total", #"reason="unread""#) == 1
                }
                try await Support.eventually { fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 1 }
                fixture.publish(.create, Fixture.message("last", ["n": 0]))
                #expect(await reader.next()?["object"]?["objectId"] == "last")
            }
            #expect(await stalled.readUntilClosed(seconds: 30).closed)
        }
    }

    @Test("a client that stops answering pings is closed after the next ping; one that answers stays connected")
    func unansweredPings() async throws {
        try await Fixture.with(adjust: {
            $0.liveQuery.pingInterval = .milliseconds(200)
            $0.connections.idleTimeout = .seconds(60)
        }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { answering in
                #expect(await answering.connect()?["op"] == "connected")
                // Connected, then silent: it reads what the server sends but never answers a ping.
                let silent = try await RawConnection(port: fixture.port)
                await silent.send(
                    "GET /parse HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                await silent.send(bytes: Self.frame(#"{"op":"connect","applicationId":"a","clientKey":"client-a"}"#))
                try await Support.eventually { fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 2 }
                // Closed by the pings: the idle timeout is a minute away.
                #expect(await silent.readUntilClosed(seconds: 10).closed)
                try await Support.eventually { fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 1 }
                // The answering client has lived through the same pings.
                #expect(await answering.subscribe(1, "Message")?["op"] == "subscribed")
            }
        }
    }

    /// A client's text frame of `text`: masked (with a zero key, so the bytes read as they are).
    static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let length: [UInt8] =
            payload.count < 126 ? [0x80 | UInt8(payload.count)] : [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        return [0x81] + length + [0, 0, 0, 0] + payload
    }
}
