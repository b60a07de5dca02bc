import Cloudlet
import CloudletTesting
import Foundation
import Logging
import Synchronization
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// A login answers an unknown username after the same bcrypt check as a wrong password, so that
/// its time does not tell which usernames exist.
@Suite("Every login pays one password check")
struct PasswordCheckTests {
    /// bcrypt at cost 4, noting for each check whether it had a stored hash.
    final class CountingHasher: PasswordHashing {
        private let bcrypt = PasswordHasher(cost: 4)
        private let checks = Mutex<[Bool]>([])
        var checksWithAHash: [Bool] { checks.withLock { $0 } }

        func hash(_ password: String) async throws -> String { try await bcrypt.hash(password) }

        func verify(_ password: String, hash: String?) async throws -> Bool {
            checks.withLock { $0.append(hash != nil) }
            return try await bcrypt.verify(password, hash: hash)
        }
    }

    @Test func anUnknownUsernameIsCheckedAsAWrongPasswordIs() async throws {
        try await TemporaryStorage.with { database, _ in
            let hasher = CountingHasher()
            var logger = Logger(label: "cloudlet")
            logger.logLevel = .critical
            let runtime = AppRuntime(
                appId: "test", stores: AppStores(database), executor: InProcessHookExecutor(registry: HookRegistry()), clock: ManualClock(),
                limits: AppRuntime.Limits(passwordHasher: hasher), logger: logger, hookLogger: logger)
            let caller = Caller(isMaster: false, requestId: "test")
            _ = try await runtime.accounts.signUp(body: ["username": "ada", "password": "right"], caller: caller)
            for (username, password) in [("nobody", "right"), ("ada", "wrong")] {
                let refusal = await #expect(throws: ParseError.self) {
                    try await runtime.accounts.logIn(username: username, password: password, address: nil, caller: caller)
                }
                #expect(refusal?.code == 101)
                #expect(refusal?.message == "Invalid username/password.")
            }
            #expect(hasher.checksWithAHash == [false, true], "the unknown username was not checked")
            _ = try await runtime.accounts.logIn(username: "ada", password: "right", address: nil, caller: caller)
            #expect(hasher.checksWithAHash == [false, true, true])
        }
    }

    @Test func theStandInHashIsAWellFormedBcryptHashOfTheHashersCost() async throws {
        for cost: UInt8 in [4, 5] {
            let hasher = PasswordHasher(cost: cost)
            let stored = try await hasher.hash("right")
            #expect(hasher.standIn.count == stored.count)
            #expect(hasher.standIn.prefix(7) == stored.prefix(7), "\(hasher.standIn) against \(stored)")
            #expect(try await hasher.verify("right", hash: stored))
            #expect(try await !hasher.verify("right", hash: nil))
        }
        #expect(PasswordHasher(cost: 10).standIn.hasPrefix("$2b$10$"))
    }
}
