import Foundation

/// Session tokens as Parse makes them (`r:` and 32 random hex digits), and the hash they are stored as.
package enum SessionToken {
    /// A new random token from the system's secure random source.
    static func generate() -> String {
        "r:" + randomHex(byteCount: 16)
    }

    /// `byteCount` bytes from the system's secure random source, as hex digits.
    static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// The SHA-256 of `token`, hex: what storage keeps instead of the token.
    package static func hash(_ token: String) -> String {
        SHA256Hasher.hash(token.utf8).hex
    }
}
