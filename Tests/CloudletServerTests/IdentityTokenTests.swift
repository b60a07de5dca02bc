import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import NIOSSL
import PushStandIns
import Testing

@Suite("Sign in with Apple and Google: identity tokens checked against the providers' keys, fetched over TLS from stand-ins")
struct IdentityTokenTests {
    static let bundleId = "com.example.shop"
    static let clientId = "1234-abc.apps.googleusercontent.com"

    /// The stand-ins of Apple and Google (each with an RSA key `k1` and a P-256 key `k2`
    /// published), and app `a`'s client, whose settings name ``bundleId`` and ``clientId``, on `clock`.
    /// Google's keys are fetched from `googleKeysPath` of its stand-in.
    static func withProviders(
        maxAge: Int = 3600, googleKeysPath: String = "/keys",
        _ body: @Sendable (_ apple: IdentityProviderStandIn, _ google: IdentityProviderStandIn, _ client: ParseTestClient, _ clock: ManualClock)
            async throws -> Void
    ) async throws {
        let apple = try await IdentityProviderStandIn(maxAge: maxAge), google = try await IdentityProviderStandIn(maxAge: maxAge)
        for provider in [apple, google] {
            try provider.makeKey("k1", .rsa)
            try provider.makeKey("k2", .p256)
        }
        var endpoints = IdentityProviderEndpoints()
        endpoints.appleKeysURL = apple.keysURL
        endpoints.googleKeysURL = google.server.url + googleKeysPath
        endpoints.trustRoots = .certificates([apple.server.certificate, google.server.certificate])
        let clock = ManualClock()
        try await AdminAPITests.withServer(clock: clock, identityProviders: endpoints) { admin, parse in
            let settings: ParseValue = ["appleBundleIds": [.string(bundleId)], "googleClientIds": .string("other.apps,\(clientId)")]
            let changed = try await AdminAPITests.asOperator(admin, .put, "/admin/apps/a", settings)
            #expect(changed.status == 200, "\(changed.body)")
            try await body(apple, google, parse("a", "a-client", "a-master"), clock)
        }
        try await apple.stop()
        try await google.stop()
    }

    /// Claims as Apple issues them to ``bundleId`` for `subject`, valid for ten minutes from `clock`'s now.
    static func appleClaims(_ subject: String, _ clock: ManualClock, _ changes: [String: ParseValue] = [:]) -> [String: ParseValue] {
        let now = clock.now.timeIntervalSince1970
        let claims: [String: ParseValue] = [
            "iss": "https://appleid.apple.com", "aud": .string(bundleId), "sub": .string(subject), "iat": .number(now),
            "exp": .number(now + 600), "email": "ada@privaterelay.appleid.com",
        ]
        return claims.merging(changes) { _, changed in changed }
    }

    static func apple(_ subject: String, _ token: String) -> ParseValue {
        ["apple": ["id": .string(subject), "token": .string(token)]]
    }

    @Test("valid RS256 and ES256 tokens sign up (201) and log in (200, the new token kept); Google's both issuers; one key fetch each")
    func validTokens() async throws {
        try await Self.withProviders { apple, google, client, clock in
            let first = try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock))
            let signedUp = try await client.post("/users", ["authData": Self.apple("001.ada", first)])
            #expect(signedUp.status == 201, "\(signedUp.body)")
            let id = try #require(signedUp["objectId"]?.stringValue)
            clock.advance(by: .seconds(30))
            let second = try apple.token(kid: "k2", claims: Self.appleClaims("001.ada", clock))
            let loggedIn = try await client.post("/users", ["authData": Self.apple("001.ada", second)])
            #expect(loggedIn.status == 200 && loggedIn["objectId"]?.stringValue == id, "\(loggedIn.body)")
            let token = try #require(loggedIn["sessionToken"]?.stringValue)
            #expect(try await client.get("/users/me", sessionToken: token)["authData"] == Self.apple("001.ada", second))
            #expect(apple.fetches == 1)

            for issuer in ["accounts.google.com", "https://accounts.google.com"] {
                let claims = Self.appleClaims("10987654321", clock, ["iss": .string(issuer), "aud": .string(Self.clientId)])
                let authData: ParseValue = ["google": ["id": "10987654321", "id_token": .string(try google.token(kid: "k1", claims: claims))]]
                let reply = try await client.post("/users", ["authData": authData])
                #expect(reply.status == (issuer.hasPrefix("https") ? 200 : 201), "\(reply.body)")
            }
            #expect(google.fetches == 1 && apple.fetches == 1)
        }
    }

    @Test("expired, early, wrong-audience, wrong-issuer, wrong-subject, forged, alg none, HS256, malformed and huge tokens answer 101 and sign nobody up")
    func refusedTokens() async throws {
        try await Self.withProviders { apple, _, client, clock in
            try apple.makeKey("forger", .rsa, published: false)
            let now = clock.now.timeIntervalSince1970
            let valid = Self.appleClaims("001.ada", clock)
            let unsigned = IdentityProviderStandIn.base64URL(JSONWriter.bytes(["alg": "none", "kid": "k1"])) + "."
                + IdentityProviderStandIn.base64URL(JSONWriter.bytes(.object(valid))) + "."
            let tokens: [(String, String)] = [
                ("expired", try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock, ["exp": .number(now - 1)]))),
                ("no exp", try apple.token(kid: "k1", claims: valid.filter { $0.key != "exp" })),
                ("early", try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock, ["nbf": .number(now + 60)]))),
                ("audience", try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock, ["aud": "com.example.other"]))),
                ("issuer", try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock, ["iss": "https://accounts.google.com"]))),
                ("subject", try apple.token(kid: "k1", claims: Self.appleClaims("001.eve", clock))),
                ("forged", try apple.token(kid: "forger", claims: valid, header: ["kid": "k1"])),
                ("wrong key type", try apple.token(kid: "k2", claims: valid, header: ["alg": "RS256"])),
                ("alg none", unsigned),
                ("HS256", try apple.token(kid: "k1", claims: valid, header: ["alg": "HS256"])),
                ("malformed", "not-a-token"),
                ("huge", String(repeating: "a", count: 200_000) + ".e30.sig"),
                ("empty", ""),
            ]
            for (name, token) in tokens {
                let reply = try await client.post("/users", ["authData": Self.apple("001.ada", token)])
                #expect(reply.status == 404 && reply["code"]?.intValue == 101, "\(name): \(reply.status) \(reply.body)")
            }
            #expect(try await client.get("/users", master: true)["results"]?.arrayValue?.isEmpty == true)
            #expect(apple.fetches == 1)
        }
    }

    @Test("an unknown kid refetches the key set once; other unknown kids wait a minute, then a rotated-in key is fetched and accepted")
    func unknownKeyIds() async throws {
        try await Self.withProviders { apple, _, client, clock in
            try apple.makeKey("k3", .rsa, published: false)
            let rotated = try apple.token(kid: "k3", claims: Self.appleClaims("001.ada", clock))
            Support.expectError(try await client.post("/users", ["authData": Self.apple("001.ada", rotated)]), status: 404, code: 101)
            #expect(apple.fetches == 1)
            apple.publish("k3")
            // A flood of made-up key ids within the minute fetches nothing more.
            for index in 0..<20 {
                let made = try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock), header: ["kid": .string("made-up-\(index)")])
                Support.expectError(try await client.post("/users", ["authData": Self.apple("001.ada", made)]), status: 404, code: 101)
            }
            Support.expectError(try await client.post("/users", ["authData": Self.apple("001.ada", rotated)]), status: 404, code: 101)
            #expect(apple.fetches == 1)
            // A known key still serves from the cache meanwhile.
            let known = try apple.token(kid: "k1", claims: Self.appleClaims("001.bob", clock))
            #expect(try await client.post("/users", ["authData": Self.apple("001.bob", known)]).status == 201)

            clock.advance(by: .seconds(61))
            let later = try apple.token(kid: "k3", claims: Self.appleClaims("001.ada", clock))
            let reply = try await client.post("/users", ["authData": Self.apple("001.ada", later)])
            #expect(reply.status == 201, "\(reply.body)")
            #expect(apple.fetches == 2)
        }
    }

    @Test("keys are kept for the max-age their answer gives, then fetched again")
    func keyLifetime() async throws {
        try await Self.withProviders(maxAge: 120) { apple, _, client, clock in
            for (advance, fetches) in [(0, 1), (100, 1), (30, 2)] {
                clock.advance(by: .seconds(advance))
                let token = try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock))
                #expect(try await client.post("/users", ["authData": Self.apple("001.ada", token)]).status < 300)
                #expect(apple.fetches == fetches)
            }
        }
    }

    @Test("keys that cannot be fetched (404) refuse the provider's logins with 101, and are tried again a minute later, not sooner")
    func unreachableKeys() async throws {
        try await Self.withProviders(googleKeysPath: "/missing") { _, google, client, clock in
            for _ in 0..<2 {
                let claims = Self.appleClaims("1098", clock, ["iss": "accounts.google.com", "aud": .string(Self.clientId)])
                let authData: ParseValue = ["google": ["id": "1098", "id_token": .string(try google.token(kid: "k1", claims: claims))]]
                Support.expectError(try await client.post("/users", ["authData": authData]), status: 404, code: 101)
            }
            #expect(google.requests == 1)
            clock.advance(by: .seconds(61))
            let claims = Self.appleClaims("1098", clock, ["iss": "accounts.google.com", "aud": .string(Self.clientId)])
            let authData: ParseValue = ["google": ["id": "1098", "id_token": .string(try google.token(kid: "k1", claims: claims))]]
            Support.expectError(try await client.post("/users", ["authData": authData]), status: 404, code: 101)
            #expect(google.requests == 2 && google.fetches == 0)
        }
    }

    @Test("a password user links Apple; an Apple id linked to another user answers 208 only to a valid token")
    func linkApple() async throws {
        try await Self.withProviders { apple, _, client, clock in
            let ada = try await client.post("/users", ["username": "ada", "password": "pw"])
            let adaId = try #require(ada["objectId"]?.stringValue), adaToken = try #require(ada["sessionToken"]?.stringValue)
            let token = try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock))
            #expect(try await client.put("/users/\(adaId)", ["authData": Self.apple("001.ada", token)], sessionToken: adaToken).status == 200)
            let loggedIn = try await client.post("/users", ["authData": Self.apple("001.ada", token)])
            #expect(loggedIn.status == 200 && loggedIn["objectId"]?.stringValue == adaId && loggedIn["username"] == "ada")

            let bobToken = try #require(try await client.post("/users", ["username": "bob", "password": "pw"])["sessionToken"]?.stringValue)
            let bobId = try #require(try await client.get("/users/me", sessionToken: bobToken)["objectId"]?.stringValue)
            let expired = try apple.token(kid: "k1", claims: Self.appleClaims("001.ada", clock, ["exp": .number(clock.now.timeIntervalSince1970 - 5)]))
            Support.expectError(
                try await client.put("/users/\(bobId)", ["authData": Self.apple("001.ada", expired)], sessionToken: bobToken), status: 404, code: 101)
            Support.expectError(
                try await client.put("/users/\(bobId)", ["authData": Self.apple("001.ada", token)], sessionToken: bobToken), status: 400, code: 208)
            #expect(try await client.get("/users/me", sessionToken: bobToken)["authData"] == nil)
        }
    }
}
