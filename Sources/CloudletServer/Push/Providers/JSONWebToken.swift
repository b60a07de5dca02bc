import Cloudlet
import Crypto
import Foundation
import _CryptoExtras

/// Compact JSON Web Tokens (RFC 7519) signed with ES256 (APNs provider tokens) or RS256 (Google's
/// OAuth assertion): header and claims as JSON, each base64url-encoded, then the signature.
enum JSONWebToken {
    /// `header.claims` signed with an ECDSA P-256 key over SHA-256, the signature as JWS's raw `r || s`.
    static func es256(header: [String: ParseValue], claims: [String: ParseValue], key: P256.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header.merging(["alg": "ES256", "typ": "JWT"]) { given, _ in given }, claims: claims)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// `header.claims` signed with an RSA key, PKCS#1 v1.5 over SHA-256.
    static func rs256(claims: [String: ParseValue], key: _RSA.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: ["alg": "RS256", "typ": "JWT"], claims: claims)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private static func signingInput(header: [String: ParseValue], claims: [String: ParseValue]) -> String {
        Base64URL.encode(JSONWriter.bytes(.object(header))) + "." + Base64URL.encode(JSONWriter.bytes(.object(claims)))
    }
}

/// Base64url without padding (RFC 4648 §5), as JWTs and JSON Web Keys use it.
enum Base64URL {
    /// The bytes `text` encodes (padded or not), or nil if it is not base64url.
    static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: text)
    }


    static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
