import Crypto

/// The keys a server accepts for one app: its client keys as they are, and its master keys as
/// SHA-256 hashes. During a rotation an app has two keys of a kind (the active one and the retiring
/// one) and both are accepted until the retiring one is retired.
///
/// ```swift
/// let keys = AppKeys(clientKeys: ["abc"], masterKeyHashes: [AppKeys.hash("secret")])
/// keys.acceptsMasterKey("secret") // true
/// ```
public struct AppKeys: Sendable, Hashable {
    /// Keys sent by client apps as `X-Parse-REST-API-Key`, `X-Parse-Client-Key` or `X-Parse-Javascript-Key`.
    public var clientKeys: [String]
    /// SHA-256 hashes of the keys sent as `X-Parse-Master-Key` by trusted code only.
    public var masterKeyHashes: [[UInt8]]

    /// Keys that accept `clientKeys` and the master keys whose hashes are `masterKeyHashes`.
    public init(clientKeys: [String], masterKeyHashes: [[UInt8]]) {
        self.clientKeys = clientKeys
        self.masterKeyHashes = masterKeyHashes
    }

    /// Whether `presented` is one of the app's client keys: each is compared, in constant time.
    public func acceptsClientKey(_ presented: String) -> Bool {
        let bytes = Array(presented.utf8)
        return clientKeys.filter { Self.matches(bytes, Array($0.utf8)) }.count > 0
    }

    /// Whether `presented` is one of the app's master keys: hashed once, then compared in constant time.
    public func acceptsMasterKey(_ presented: String) -> Bool {
        let hash = Self.hash(presented)
        return masterKeyHashes.filter { Self.matches(hash, $0) }.count > 0
    }

    /// A new random key: 32 letters and digits from the system's secure random source.
    public static func randomKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// The SHA-256 of `key`, as the host database keeps master keys.
    public static func hash(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }

    /// Compares two byte strings in time that does not depend on where they differ.
    static func matches(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        guard presented.count == expected.count else { return false }
        return zip(presented, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
