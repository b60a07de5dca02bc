import Cloudlet
import Crypto
import Foundation
import NIOHTTP1
import _CryptoExtras

/// A local identity provider (Apple's or Google's, for `authData` tests): publishes a JSON Web Key
/// Set at `GET /keys` over HTTPS, with `Cache-Control: max-age`, and signs identity tokens with keys
/// made at start. A key may be kept unpublished (a rotation not yet announced, or a forger's key
/// that claims a published key's id). Fetches of the key set are counted.
public final class IdentityProviderStandIn: Sendable {
    /// The kinds of key it makes.
    public enum KeyKind: Sendable {
        /// RSA 2048, for RS256.
        case rsa
        /// EC P-256, for ES256.
        case p256
    }

    private enum PrivateKey: @unchecked Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    private struct State: Sendable {
        var keys: [String: PrivateKey] = [:]
        var published: [String] = []
        var fetches = 0
        var requests = 0
    }

    /// The server; `keysURL` is its key set.
    public let server: StandInServer
    private let state: Locked<State>

    /// A provider whose key set answers say they may be kept `maxAge` seconds.
    public init(maxAge: Int = 3600) async throws {
        let state = Locked(State())
        self.state = state
        server = try await StandInServer { request in
            state.withLock { $0.requests += 1 }
            guard request.method == .GET, request.path == "/keys" else { return StandInResponse(status: 404) }
            let set = state.withLock { state -> ParseValue in
                state.fetches += 1
                return ["keys": .array(state.published.compactMap { kid in state.keys[kid].map { Self.jwk($0, kid: kid) } })]
            }
            return StandInResponse(
                status: 200, headers: [("content-type", "application/json"), ("cache-control", "public, max-age=\(maxAge)")],
                body: JSONWriter.bytes(set))
        }
    }

    /// The URL of the key set.
    public var keysURL: String { server.url + "/keys" }
    /// How many times the key set was fetched.
    public var fetches: Int { state.withLock { $0.fetches } }
    /// How many requests arrived, to any path.
    public var requests: Int { state.withLock { $0.requests } }

    /// Makes a key of `kind` named `kid`, published in the key set unless `published` is false
    /// (a key that replaces one of the same id keeps its place).
    public func makeKey(_ kid: String, _ kind: KeyKind = .rsa, published: Bool = true) throws {
        let key: PrivateKey = kind == .rsa ? .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)) : .p256(P256.Signing.PrivateKey())
        state.withLock { state in
            state.keys[kid] = key
            if published, !state.published.contains(kid) { state.published.append(kid) }
        }
    }

    /// Publishes the key `kid` from now on.
    public func publish(_ kid: String) {
        state.withLock { if !$0.published.contains(kid) { $0.published.append(kid) } }
    }

    /// A token with `claims`, signed by the key `kid` with its algorithm; `header` members replace
    /// the ones made (`alg`, `kid`, `typ`).
    public func token(kid: String, claims: [String: ParseValue], header: [String: ParseValue] = [:]) throws -> String {
        guard let key = state.withLock({ $0.keys[kid] }) else { throw StandInError.noSuchKey(kid) }
        let algorithm: ParseValue = if case .rsa = key { "RS256" } else { "ES256" }
        let made: [String: ParseValue] = ["alg": algorithm, "kid": .string(kid), "typ": "JWT"]
        let input = Self.base64URL(JSONWriter.bytes(.object(made.merging(header) { _, given in given })))
            + "." + Self.base64URL(JSONWriter.bytes(.object(claims)))
        let signature: Data =
            switch key {
            case .rsa(let key): try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
            case .p256(let key): try key.signature(for: Data(input.utf8)).rawRepresentation
            }
        return input + "." + Self.base64URL(signature)
    }

    public func stop() async throws {
        try await server.stop()
    }

    /// A stand-in's refusal to sign with a key it never made.
    public enum StandInError: Error {
        case noSuchKey(String)
    }

    private static func jwk(_ key: PrivateKey, kid: String) -> ParseValue {
        switch key {
        case .rsa(let key):
            let numbers = try? key.publicKey.getKeyPrimitives()
            return [
                "kty": "RSA", "kid": .string(kid), "use": "sig", "alg": "RS256",
                "n": .string(base64URL(numbers?.modulus ?? Data())), "e": .string(base64URL(numbers?.publicExponent ?? Data())),
            ]
        case .p256(let key):
            let raw = key.publicKey.rawRepresentation
            return [
                "kty": "EC", "kid": .string(kid), "use": "sig", "alg": "ES256", "crv": "P-256",
                "x": .string(base64URL(raw.prefix(32))), "y": .string(base64URL(raw.suffix(32))),
            ]
        }
    }

    /// Base64url without padding.
    public static func base64URL(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
