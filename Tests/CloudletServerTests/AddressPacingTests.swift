import CloudletServer
import Foundation
import Testing

/// The host paces the requests of each client address, whatever app or route they are for:
/// requests past an address's pace wait for their turn instead of taking the server from others.
@Suite("Requests paced by client address", .serialized, .tags(.timing))
struct AddressPacingTests {
    @Test func anAddressPastItsPaceWaitsItsTurnWhileAnotherAddressIsServedAtOnce() async throws {
        // One request every two seconds per address, no burst.
        let limits = ConnectionLimits(requestsPerAddress: RateLimitQuota(perSecond: 0.5, burst: 1))
        try await ConnectionLimitsTests.withLiveServer(limits) { metrics, port in
            let flooder = try RawConnection(port: port, from: "127.0.0.7")
            #expect(flooder.send(ConnectionLimitsTests.health + ConnectionLimitsTests.health))
            #expect(flooder.readAnswer().hasPrefix("HTTP/1.1 200"))
            // The second request is held, not refused, while another address is served at once.
            let other = try RawConnection(port: port, from: "127.0.0.8")
            #expect(other.send(ConnectionLimitsTests.health))
            #expect(other.readAnswer(seconds: 1).hasPrefix("HTTP/1.1 200"))
            #expect(flooder.readAnswer(seconds: 1) == "", "answered before its turn")
            #expect(flooder.readAnswer(seconds: 3).hasPrefix("HTTP/1.1 200"))
            let paced = String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("cloudlet_requests_paced_total ") }
            #expect(paced.flatMap { Int($0.split(separator: " ")[1]) } ?? 0 >= 1)
        }
    }

    @Test func withoutAPaceNothingWaits() async throws {
        try await ConnectionLimitsTests.withLiveServer(ConnectionLimits(requestsPerAddress: nil)) { _, port in
            let client = try RawConnection(port: port, from: "127.0.0.9")
            let last = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            #expect(client.send(String(repeating: ConnectionLimitsTests.health, count: 19) + last))
            let (answers, closed) = client.readUntilClosed(seconds: 2)
            #expect(closed && answers.components(separatedBy: "HTTP/1.1 200").count - 1 == 20)
        }
    }
}
