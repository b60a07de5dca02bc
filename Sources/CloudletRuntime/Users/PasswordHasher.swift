import HummingbirdBcrypt
import NIOPosix

/// How passwords are hashed and checked. ``PasswordHasher`` (bcrypt) is the server's; another
/// one can stand in where a test needs to see the checks made.
public protocol PasswordHashing: Sendable {
    /// The hash of `password`, to store.
    func hash(_ password: String) async throws -> String

    /// Whether `password` matches `hash`. Without a hash (no such account, or one without a
    /// password) the answer is false, after the same work as a real check: a login must not tell
    /// by its time whether a username exists.
    func verify(_ password: String, hash: String?) async throws -> Bool
}

/// Hashes and checks passwords with bcrypt, off the Swift concurrency pool (a bcrypt round takes
/// tens of milliseconds and would otherwise stall other requests' tasks).
public struct PasswordHasher: PasswordHashing {
    /// bcrypt's cost: each step doubles the work. Parse Server uses 10.
    public let cost: UInt8

    /// A hasher with the given cost (4 to 31).
    public init(cost: UInt8 = 10) {
        self.cost = min(max(cost, 4), 31)
    }

    /// The bcrypt hash of `password`.
    public func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; without one, checks `password` against a hash of this
    /// cost that matches nothing, and answers false.
    public func verify(_ password: String, hash: String?) async throws -> Bool {
        let checked = hash ?? standIn
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: checked) }
        return matches && hash != nil
    }

    /// A well-formed bcrypt hash of this cost (its salt and digest made up), so that checking a
    /// password against it costs what checking a stored one does.
    var standIn: String {
        "$2b$" + (cost < 10 ? "0" : "") + "\(cost)$" + "NoSuchAccountNoSuchAcc" + "ountNoSuchAccountNoSuchAccountN"
    }
}
