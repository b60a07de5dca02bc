import Cloudlet
import Foundation
import Synchronization

/// Limits failed logins per username and per client address within a sliding window, against
/// password guessing. A key past its limit is refused (429, code 155) until old failures age out.
public final class LoginThrottle: Sendable {
    /// How many failures a key may have within ``window``.
    public let maximumFailuresPerUsername: Int
    /// How many failures one client address may have within ``window`` (across usernames).
    public let maximumFailuresPerAddress: Int
    /// How long a failure counts.
    public let window: Duration
    private let clock: any CloudletClock
    private let failures = Mutex<[String: [Date]]>([:])

    public init(clock: any CloudletClock, maximumFailuresPerUsername: Int = 5, maximumFailuresPerAddress: Int = 20, window: Duration = .seconds(60)) {
        self.clock = clock
        self.maximumFailuresPerUsername = maximumFailuresPerUsername
        self.maximumFailuresPerAddress = maximumFailuresPerAddress
        self.window = window
    }

    /// Throws 155 if `username` or `address` has used up its failures.
    func checkAllowed(username: String, address: String?) throws {
        let now = clock.now
        let blocked = failures.withLock { table -> Bool in
            prune(&table, now: now)
            if table["user:" + username, default: []].count >= maximumFailuresPerUsername { return true }
            if let address, table["addr:" + address, default: []].count >= maximumFailuresPerAddress { return true }
            return false
        }
        if blocked {
            throw ParseError(code: 155, message: "Too many failed logins; try again later.", httpStatus: 429)
        }
    }

    /// Counts one failed login.
    func recordFailure(username: String, address: String?) {
        let now = clock.now
        failures.withLock { table in
            table["user:" + username, default: []].append(now)
            if let address { table["addr:" + address, default: []].append(now) }
        }
    }

    /// Forgets the username's failures after a successful login.
    func recordSuccess(username: String) {
        _ = failures.withLock { $0.removeValue(forKey: "user:" + username) }
    }

    private func prune(_ table: inout [String: [Date]], now: Date) {
        let oldest = now.addingTimeInterval(-window.seconds)
        for (key, dates) in table {
            let recent = dates.filter { $0 > oldest }
            table[key] = recent.isEmpty ? nil : recent
        }
    }
}
