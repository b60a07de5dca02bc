import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// One client address may use only its share of its app's quota, so that it cannot spend the
/// quota of the app's other clients.
@Suite("A client address's share of its app's quota")
struct AddressShareTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// A stored file's name (32 hex digits, `_`, the name given) that no upload made.
    static let missingFile = String(repeating: "0f", count: 16) + "_missing.txt"

    /// Over a real socket behind a trusted proxy, on a manual clock (nothing refills): one address
    /// downloading missing files without keys is refused past a quarter of the app's burst, while
    /// another address of the same app is still served, and the master key has no share.
    @Test func oneAddressFloodingIsRefusedWhileAnotherAddressOfTheAppIsServed() async throws {
        let proxies = try TrustedProxies(["127.0.0.1"])
        let app = LiveServer.app("a", rateLimits: RateLimitPolicy())
        try await LiveServer.with(apps: [app], clock: ManualClock(), logLevel: .critical, adjust: { $0.trustedProxies = proxies }) { server in
            let client = server.client("a")
            func raw(_ method: HTTPRequest.Method, _ path: String, _ headers: HTTPFields, _ json: ParseValue?) async throws -> ParseTestClient.Reply {
                try await client.raw(method, path, headers: headers, body: json.map { ByteBuffer(bytes: JSONWriter.bytes($0)) })
            }
            var flood: [Int] = []
            for _ in 0..<30 { flood.append(try await raw(.get, "/files/a/\(Self.missingFile)", [Self.forwardedFor: "192.0.2.66"], nil).status) }
            #expect(flood == Array(repeating: 404, count: 20) + Array(repeating: 429, count: 10), "\(flood)")
            let refused = try await raw(.post, "/classes/Posts", Self.clientHeaders(from: "192.0.2.66"), ["n": 1])
            Support.expectError(refused, status: 429, code: 155)
            #expect(refused.headers[HTTPField.Name("RateLimit-Policy")!] == "\"address\";q=20;w=2")
            #expect(try await raw(.get, "/files/a/\(Self.missingFile)", [Self.forwardedFor: "198.51.100.7"], nil).status == 404)
            #expect(try await raw(.post, "/classes/Posts", Self.clientHeaders(from: "198.51.100.7"), ["n": 2]).status == 201)
            var master = Self.clientHeaders(from: "192.0.2.66")
            master[HTTPField.Name("X-Parse-Master-Key")!] = "master-a"
            #expect(try await raw(.post, "/classes/Posts", master, ["n": 3]).status == 201)
        }
    }

    @Test func theShareIsCheckedBeforeTheAppQuotaAndWhatItRefusesIsNotCharged() async throws {
        let limiter = RateLimiter(policy: RateLimitPolicy(quota: .init(count: 8, window: .seconds(60))), clock: ManualClock())
        func request(_ address: String) -> RateLimitedRequest { RateLimitedRequest(path: "/classes/X", method: "GET", address: address) }
        for _ in 0..<2 { try await limiter.admit(request("192.0.2.1"), .quota) }
        for _ in 0..<10 { await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(request("192.0.2.1"), .quota) } }
        // The app's quota was charged twice: three more addresses fill it.
        for index in 0..<3 { for _ in 0..<2 { try await limiter.admit(request("198.51.100.\(index)"), .quota) } }
        await #expect(throws: RateLimitExceeded.self) { try await limiter.admit(request("203.0.113.9"), .quota) }
    }

    @Test func theShareIsAPolicySettingAboveZeroAndAtMostOne() throws {
        #expect(RateLimitPolicy().addressShare == 0.25)
        let policy = try RateLimitPolicy(json: ["rate": "100/s,burst=200", "addressShare": 0.5])
        #expect(policy.addressShare == 0.5)
        #expect(try RateLimitPolicy(json: policy.json) == policy)
        for bad: ParseValue in [0, 1.5, -1, "half"] {
            #expect(throws: ParseError.self) { try RateLimitPolicy(json: ["addressShare": bad]) }
        }
    }

    static func clientHeaders(from address: String) -> HTTPFields {
        [
            HTTPField.Name("X-Parse-Application-Id")!: "a", HTTPField.Name("X-Parse-REST-API-Key")!: "client-a",
            .contentType: "application/json", forwardedFor: address,
        ]
    }
}
