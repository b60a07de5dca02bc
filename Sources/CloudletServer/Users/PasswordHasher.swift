import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords with bcrypt, off the Swift concurrency pool (a bcrypt round takes
/// tens of milliseconds and would otherwise stall other requests' tasks).
public struct PasswordHasher: Sendable {
    /// bcrypt's cost: each step doubles the work. Parse Server uses 10.
    public let cost: UInt8

    /// A hasher with the given cost (4 to 31).
    public init(cost: UInt8 = 10) {
        self.cost = min(max(cost, 4), 31)
    }

    /// The bcrypt hash of `password`.
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`.
    func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
