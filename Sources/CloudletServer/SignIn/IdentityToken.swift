import Cloudlet
import Foundation

/// An identity token (a compact JWS, RFC 7515, carrying JWT claims) as Apple and Google issue
/// them, read but not yet trusted: its algorithm and key id, claims, and the signature over its
/// first two parts. Parse Server's messages for each refusal, all with code 101.
struct IdentityToken {
    /// The longest token read, in bytes (real ones are about 1 KiB).
    static let maximumBytes = 8 * 1024
    /// The algorithms accepted, each with its key type (``SigningKey``); `none` and HMAC never are.
    static let algorithms: Set<String> = ["RS256", "ES256"]

    let algorithm: String
    let keyId: String?
    let claims: [String: ParseValue]
    /// `header.claims`, the bytes the signature is over.
    let signingInput: Data
    let signature: Data

    /// The token `text`: throws 101 when it is too long or not three base64url parts of which the
    /// first two are JSON objects, or when its algorithm is not one of ``algorithms``.
    init(_ text: String) throws(ParseError) {
        guard text.utf8.count <= Self.maximumBytes else { throw Self.refused("provided token does not decode as JWT") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.object(parts[0]), let claims = Self.object(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw Self.refused("provided token does not decode as JWT") }
        guard let algorithm = header["alg"]?.stringValue, Self.algorithms.contains(algorithm) else {
            throw Self.refused("invalid algorithm")
        }
        self.algorithm = algorithm
        keyId = header["kid"]?.stringValue
        self.claims = claims
        signingInput = Data(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.signature = signature
    }

    /// Throws 101 unless the claims say the token was issued by one of `issuers`, to one of
    /// `audiences` (`aud`, one or a list), for `subject` (`sub`), and has not expired (`exp`,
    /// required) nor is too early (`nbf`) at `now`.
    func checkClaims(issuers: [String], audiences: [String], subject: String, now: Date) throws(ParseError) {
        let seconds = now.timeIntervalSince1970
        guard let expiry = claims["exp"]?.doubleValue, expiry > seconds else { throw Self.refused("jwt expired") }
        if let notBefore = claims["nbf"]?.doubleValue, notBefore > seconds { throw Self.refused("jwt not active") }
        let named = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard named.contains(where: audiences.contains) else {
            throw Self.refused("jwt audience invalid. expected: \(audiences.joined(separator: " or "))")
        }
        let issuer = claims["iss"]?.stringValue ?? ""
        guard issuers.contains(issuer) else {
            throw Self.refused(
                "id token not issued by correct OpenID provider - expected: \(issuers.joined(separator: " or ")) | from: \(issuer.prefix(256))")
        }
        guard claims["sub"]?.stringValue == subject else { throw Self.refused("auth data is invalid for this user.") }
    }

    static func refused(_ message: String) -> ParseError {
        ParseError(code: 101, message: message)
    }

    private static func object(_ part: Substring) -> [String: ParseValue]? {
        Base64URL.decode(part).flatMap { try? JSONParser.parse($0).objectValue }
    }
}
