import Cloudlet
import CloudletServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Wrong operator keys are throttled per client address, on every route the key opens.
@Suite("Operator key throttle")
struct OperatorKeyThrottleTests {
    static let operatorKey = "operator-secret"

    /// Over a real socket behind a trusted proxy: 1,000 wrong keys from one address get 401 ten
    /// times, then 429 (the right key too, from there), on the admin API and `/metrics` alike;
    /// the right key from another address still opens both.
    @Test func aThousandWrongKeysFromOneAddressAreThrottledAndTheOperatorElsewhereIsNot() async throws {
        try await Self.withLiveServer { get in
            func send(_ path: String, key: String, from address: String) async throws -> (status: Int, body: ParseValue?) {
                try await get(path, [HTTPField.Name("X-Cloudlet-Operator-Key")!: key, HTTPField.Name("X-Forwarded-For")!: address])
            }
            var statuses: [Int: Int] = [:]
            for index in 0..<1_000 {
                let reply = try await send(index.isMultiple(of: 2) ? "/admin/apps" : "/metrics", key: "guess\(index)", from: "192.0.2.66")
                statuses[reply.status, default: 0] += 1
                if reply.status == 429 { #expect(reply.body?["code"] == 155, "\(String(describing: reply.body))") }
            }
            #expect(statuses == [401: OperatorKeyGuard.maximumFailuresPerAddress, 429: 1_000 - OperatorKeyGuard.maximumFailuresPerAddress])
            #expect(try await send("/admin/apps", key: Self.operatorKey, from: "192.0.2.66").status == 429)
            #expect(try await send("/admin/apps", key: Self.operatorKey, from: "198.51.100.7").status == 200)
            #expect(try await send("/metrics", key: Self.operatorKey, from: "198.51.100.7").status == 200)
        }
    }

    @Test func theRightKeyIsNotCountedAgainstItsAddress() async throws {
        try await Self.withLiveServer { get in
            let headers: HTTPFields = [HTTPField.Name("X-Cloudlet-Operator-Key")!: Self.operatorKey]
            for _ in 0..<(3 * OperatorKeyGuard.maximumFailuresPerAddress) {
                let status = try await get("/admin/apps", headers).status
                #expect(status == 200)
            }
        }
    }

    /// A `GET` of a path from `/` with these headers, answering the status and the body if it is JSON.
    typealias Get = @Sendable (String, HTTPFields) async throws -> (status: Int, body: ParseValue?)

    /// Runs `body` with `GET` on a live server that trusts `X-Forwarded-For` from loopback.
    static func withLiveServer(_ body: @Sendable (Get) async throws -> Void) async throws {
        let proxies = try TrustedProxies(["127.0.0.1"])
        try await LiveServer.with(logLevel: .critical, adjust: { $0.trustedProxies = proxies; $0.operatorKey = OperatorKey(operatorKey) }) { server in
            try await body { path, headers in
                let (status, _, reply) = try await server.transport(.get, path, headers, nil)
                return (status, try? JSONParser.parse(Array(reply.readableBytesView)))
            }
        }
    }
}
