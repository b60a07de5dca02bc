/// The keys of one app: the client key that apps ship with, and the master key that bypasses ACLs.
public struct AppKeys: Sendable, Hashable {
    /// Sent by client apps as `X-Parse-REST-API-Key`, `X-Parse-Client-Key` or `X-Parse-Javascript-Key`.
    public var clientKey: String
    /// Sent as `X-Parse-Master-Key` by trusted code only.
    public var masterKey: String

    public init(clientKey: String, masterKey: String) {
        self.clientKey = clientKey
        self.masterKey = masterKey
    }

    /// New random keys: 32 letters and digits each, from the system's secure random source.
    public static func random() -> AppKeys {
        AppKeys(clientKey: randomKey(), masterKey: randomKey())
    }

    private static func randomKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// Compares a presented key with an expected one in time that does not depend on where they differ.
    static func matches(_ presented: String, _ expected: String) -> Bool {
        let a = Array(presented.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
