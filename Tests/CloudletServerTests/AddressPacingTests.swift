import CloudletServer
import CloudletTesting
import Foundation
import Testing

/// The host paces the requests of each client address, whatever app or route they are for:
/// requests past an address's pace wait for their turn instead of taking the server from others.
@Suite("Requests paced by client address", .timing)
struct AddressPacingTests {
    @Test func anAddressPastItsPaceWaitsItsTurnWhileAnotherAddressIsServedAtOnce() async throws {
        // One request every two seconds per address, no burst.
        let limits = ConnectionLimits(requestsPerAddress: RateLimitQuota(perSecond: 0.5, burst: 1))
        try await LiveServer.with(adjust: { $0.connections = limits }) { server in
            let flooder = try await RawConnection(port: server.port, from: "127.0.0.7")
            #expect(await flooder.send(ConnectionLimitsTests.health + ConnectionLimitsTests.health))
            #expect(await flooder.answer().hasPrefix("HTTP/1.1 200"))
            // The second request is held, not refused, while another address is served at once.
            let other = try await RawConnection(port: server.port, from: "127.0.0.8")
            #expect(await other.send(ConnectionLimitsTests.health))
            #expect(await other.answer(seconds: 1).hasPrefix("HTTP/1.1 200"))
            #expect(await flooder.answer(seconds: 1) == "", "answered before its turn")
            #expect(await flooder.answer(seconds: 3).hasPrefix("HTTP/1.1 200"))
            let paced = String(decoding: server.metrics.exposition(), as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("cloudlet_requests_paced_total ") }
            #expect(paced.flatMap { Int($0.split(separator: " ")[1]) } ?? 0 >= 1)
        }
    }

    @Test func withoutAPaceNothingWaits() async throws {
        try await LiveServer.with(adjust: { $0.connections = ConnectionLimits(requestsPerAddress: nil) }) { server in
            let client = try await RawConnection(port: server.port, from: "127.0.0.9")
            let last = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            #expect(await client.send(String(repeating: ConnectionLimitsTests.health, count: 19) + last))
            let (answers, closed) = await client.readUntilClosed(seconds: 2)
            #expect(closed && answers.components(separatedBy: "HTTP/1.1 200").count - 1 == 20)
        }
    }
}
