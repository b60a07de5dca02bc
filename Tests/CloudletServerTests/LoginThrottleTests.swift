import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Login throttling: attempts count before the password check, the table stays bounded, and the
/// client's address comes from the socket unless a trusted proxy forwards it.
@Suite("Login throttle")
struct LoginThrottleTests {
    @Test(arguments: TestStore.allCases) func parallelWrongPasswordsAreCountedBeforeTheyAreChecked(store: TestStore) async throws {
        try await UsersTests.withClient(store) { client in
            _ = try await UsersTests.signUp(client, "ivy")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<60 {
                    group.addTask { try await client.post("/login", ["username": "ivy", "password": "guess"]).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 404 }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 55, "\(statuses)")
        }
    }

    @Test func aSuccessfulLoginIsNotChargedToItsAddress() throws {
        let clock = ManualClock()
        let throttle = LoginThrottle(clock: clock, maximumFailuresPerAddress: 3)
        for index in 0..<10 {
            let attempt = try throttle.begin(username: "user\(index)", address: "198.51.100.7")
            throttle.succeeded(attempt)
        }
        for index in 0..<3 { _ = try throttle.begin(username: "other\(index)", address: "198.51.100.7") }
        #expect(throws: ParseError.self) { try throttle.begin(username: "last", address: "198.51.100.7") }
        clock.advance(by: .seconds(61))
        _ = try throttle.begin(username: "last", address: "198.51.100.7")
    }

    @Test func anAddressFailingAtAnAccountIsThrottledThereWithoutLockingOtherAddressesOut() throws {
        let throttle = LoginThrottle(clock: ManualClock())
        for _ in 0..<5 { _ = try throttle.begin(username: "x", address: "192.0.2.1") }
        #expect(throws: ParseError.self) { try throttle.begin(username: "x", address: "192.0.2.1") }
        throttle.succeeded(try throttle.begin(username: "x", address: "198.51.100.2"))
        _ = try throttle.begin(username: "y", address: "192.0.2.1")
    }

    @Test func aGuessSpreadOverManyAddressesSlowsToOneTryPerAddressButNeverLocksTheAccount() throws {
        let clock = ManualClock()
        let throttle = LoginThrottle(clock: clock)
        for index in 0..<20 { _ = try throttle.begin(username: "x", address: "203.0.113.\(index)") }
        #expect(throws: ParseError.self) { try throttle.begin(username: "x", address: "203.0.113.0") }
        for index in 20..<200 {
            _ = try throttle.begin(username: "x", address: "203.0.113.\(index)")
            #expect(throws: ParseError.self) { try throttle.begin(username: "x", address: "203.0.113.\(index)") }
        }
        throttle.succeeded(try throttle.begin(username: "x", address: "198.51.100.2"))
        clock.advance(by: .seconds(61))
        for _ in 0..<5 { _ = try throttle.begin(username: "x", address: "203.0.113.0") }
    }

    @Test func theTableStaysBoundedUnderAFloodOfUsernames() throws {
        let clock = ManualClock()
        let throttle = LoginThrottle(clock: clock, capacity: 1_000)
        _ = try throttle.begin(username: "victim", address: nil)
        for index in 0..<20_000 { _ = try throttle.begin(username: "flood\(index)", address: nil) }
        #expect(throttle.keyCount <= 1_000)
        // Within one generation of new keys the victim's failures are still counted.
        let bounded = LoginThrottle(clock: clock, maximumFailuresPerAccountAndAddress: 2, capacity: 1_000)
        _ = try bounded.begin(username: "victim", address: nil)
        for index in 0..<200 { _ = try bounded.begin(username: "flood\(index)", address: nil) }
        _ = try bounded.begin(username: "victim", address: nil)
        for index in 200..<400 { _ = try bounded.begin(username: "flood\(index)", address: nil) }
        #expect(throws: ParseError.self) { try bounded.begin(username: "victim", address: nil) }
    }

    @Test func trustedProxiesNameTheClient() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["203.0.113.9, 10.0.0.3"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["1.1.1.1", "203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "::1", forwardedFor: []) == "::1")
        #expect(proxies.clientAddress(peer: "192.0.2.1", forwardedFor: ["203.0.113.9"]) == "192.0.2.1")
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["not-an-ip"]) == "10.1.2.3")
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.9"]) == "127.0.0.1")
        #expect(throws: ParseError.self) { try TrustedProxies(["10.0.0.0/33"]) }
        #expect(throws: ParseError.self) { try TrustedProxies(["example.com"]) }
    }

    /// Over a real socket: a forged `X-Forwarded-For` does not escape the per-address limit, and
    /// from a trusted proxy it names the client.
    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() async throws {
        let forwardedFor = HTTPField.Name("X-Forwarded-For")!
        func failures(trusting proxies: [String]) async throws -> [Int] {
            try await Self.withLiveServer(trustedProxies: proxies) { client in
                var statuses: [Int] = []
                for index in 0..<21 {
                    var headers = Support.clientHeaders()
                    headers[forwardedFor] = "203.0.113.\(index)"
                    let reply = try await client.raw(
                        .post, "/login", headers: headers, body: .init(string: #"{"username":"u\#(index)","password":"x"}"#))
                    statuses.append(reply.status)
                }
                return statuses
            }
        }
        let untrusted = try await failures(trusting: [])
        #expect(untrusted.prefix(20).allSatisfy { $0 == 404 } && untrusted.last == 429, "\(untrusted)")
        let trusted = try await failures(trusting: ["127.0.0.1"])
        #expect(trusted.allSatisfy { $0 == 404 }, "\(trusted)")
    }

    /// Over a real socket behind a trusted proxy: the client at one address failing at an account
    /// is refused there, while the account's owner at another address logs in.
    @Test func wrongLoginsFromOneAddressDoNotLockTheOwnerOut() async throws {
        let forwardedFor = HTTPField.Name("X-Forwarded-For")!
        try await Self.withLiveServer(trustedProxies: ["127.0.0.1"]) { client in
            let signUp = try await client.post("/users", ["username": "owner", "password": "right"])
            #expect(signUp.status == 201)
            func logIn(from address: String, password: String) async throws -> Int {
                var headers = Support.clientHeaders()
                headers[forwardedFor] = address
                return try await client.raw(
                    .post, "/login", headers: headers, body: .init(string: #"{"username":"owner","password":"\#(password)"}"#)
                ).status
            }
            var attacker: [Int] = []
            for _ in 0..<8 { attacker.append(try await logIn(from: "192.0.2.66", password: "guess")) }
            #expect(attacker == [404, 404, 404, 404, 404, 429, 429, 429])
            #expect(try await logIn(from: "198.51.100.7", password: "right") == 200)
            #expect(try await logIn(from: "192.0.2.66", password: "right") == 429)
        }
    }

    /// Runs `body` with a client of app `test` (the keys ``Support/clientHeaders(master:)`` sends) of
    /// a live server trusting `X-Forwarded-For` from `trustedProxies`.
    static func withLiveServer<Value: Sendable>(
        trustedProxies: [String] = [], _ body: @Sendable (ParseTestClient) async throws -> Value
    ) async throws -> Value {
        let (app, proxies) = (LiveServer.app("test", clientKey: "client-key", masterKey: "master-key"), try TrustedProxies(trustedProxies))
        return try await LiveServer.with(apps: [app], adjust: { $0.trustedProxies = proxies }) { server in
            try await body(server.client("test", clientKey: "client-key", masterKey: "master-key"))
        }
    }
}
