import Crypto
import Foundation

/// A password as `Users` keeps it: a random per-user salt and the SHA-256 of salt and password,
/// both hex. The password itself is never stored.
struct PasswordDigest: Sendable, Hashable {
    /// 16 random bytes, hex.
    let salt: String
    /// SHA-256 of the salt's text followed by the password, hex.
    let hash: String

    /// The digest of `password` with a new random salt.
    init(password: String) {
        salt = Hex.randomBytes(16)
        hash = Self.digest(password, salt: salt)
    }

    /// A stored digest.
    init(salt: String, hash: String) {
        self.salt = salt
        self.hash = hash
    }

    /// A digest that matches no password, checked when there is no such user so that an unknown
    /// username takes as long to refuse as a wrong password.
    static let decoy = PasswordDigest(salt: Hex.randomBytes(16), hash: String(repeating: "0", count: 64))

    /// Whether `password` is the one this digest was made from (compared in constant time).
    func matches(_ password: String) -> Bool {
        let candidate = Array(Self.digest(password, salt: salt).utf8)
        let stored = Array(hash.utf8)
        guard candidate.count == stored.count else { return false }
        return zip(candidate, stored).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func digest(_ password: String, salt: String) -> String {
        Hex.string(SHA256.hash(data: Data((salt + password).utf8)))
    }
}

/// Lowercase hex text of bytes.
enum Hex {
    /// `bytes` as hex.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// `count` random bytes from the system's secure generator, as hex.
    static func randomBytes(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return string((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
