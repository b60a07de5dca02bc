import Cloudlet
import Crypto
import Foundation
import _CryptoExtras

/// A public key an identity provider signs tokens with, read from its JSON Web Key Set (RFC 7517):
/// RSA (for RS256, 2048 bits or more) or EC P-256 (for ES256).
enum SigningKey: Sendable {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)

    /// The most keys one key set may hold; providers publish two or three.
    static let maximumKeysPerSet = 32

    /// The signing keys of the key set `json` by `kid`: those of a known type with `use` absent or
    /// `sig`, at most ``maximumKeysPerSet``; the others are passed over. Nil when `json` is not a key set.
    static func keySet(_ json: ParseValue) -> [String: SigningKey]? {
        guard let entries = json["keys"]?.arrayValue else { return nil }
        var keys: [String: SigningKey] = [:]
        for entry in entries.prefix(maximumKeysPerSet) {
            guard let kid = entry["kid"]?.stringValue, entry["use"].map({ $0.stringValue == "sig" }) ?? true,
                let key = SigningKey(entry)
            else { continue }
            keys[kid] = key
        }
        return keys
    }

    /// The key of one JWK, or nil if its type, curve or numbers are not one this reads.
    init?(_ jwk: ParseValue) {
        switch jwk["kty"]?.stringValue {
        case "RSA":
            guard jwk["alg"].map({ $0.stringValue == "RS256" }) ?? true, let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode), let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            self = .rsa(key)
        case "EC":
            guard jwk["crv"]?.stringValue == "P-256", jwk["alg"].map({ $0.stringValue == "ES256" }) ?? true,
                let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            self = .p256(key)
        default:
            return nil
        }
    }

    /// Whether this key made `signature` over `input` with `algorithm` (`RS256` or `ES256`, each with its own key type).
    func isValid(_ signature: Data, of input: Data, algorithm: String) -> Bool {
        switch (algorithm, self) {
        case ("RS256", .rsa(let key)):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5)
        case ("ES256", .p256(let key)):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: input)
        default:
            return false
        }
    }
}
