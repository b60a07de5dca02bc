import Foundation

/// Session tokens as Parse makes them (`r:` and 32 random hex digits), and the hash they are stored as.
package enum SessionToken {
    /// A new random token from the system's secure random source.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "r:" + bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of `token`, hex: what storage keeps instead of the token.
    package static func hash(_ token: String) -> String {
        SHA256Hasher.hash(token.utf8).hex
    }
}
