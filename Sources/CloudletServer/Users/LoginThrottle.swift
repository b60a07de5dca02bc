import Cloudlet
import Foundation
import Synchronization

/// Limits failed logins per username and per client address within a sliding window, against
/// password guessing. A key past its limit is refused (429, code 155) until old failures age out.
///
/// An attempt counts as a failure from the moment it starts, before the password is checked, and
/// is taken back only when the password matched: so logins sent all at once cannot all reach the
/// slow password check. The table holds at most ``capacity`` keys however many distinct usernames
/// and addresses a flood brings; past that, the keys untouched the longest are forgotten first.
public final class LoginThrottle: Sendable {
    /// How many failures a username may have within ``window``.
    public let maximumFailuresPerUsername: Int
    /// How many failures one client address may have within ``window`` (across usernames).
    public let maximumFailuresPerAddress: Int
    /// How long a failure counts.
    public let window: Duration
    /// The most keys (usernames and addresses) remembered at once.
    public let capacity: Int
    private let clock: any CloudletClock
    private let table: Mutex<FailureTable>

    /// A throttle reading time from `clock`, with Cloudlet's defaults: 5 failures per username and
    /// 20 per address a minute, at most 100,000 keys.
    public init(
        clock: any CloudletClock, maximumFailuresPerUsername: Int = 5, maximumFailuresPerAddress: Int = 20,
        window: Duration = .seconds(60), capacity: Int = 100_000
    ) {
        self.clock = clock
        self.maximumFailuresPerUsername = maximumFailuresPerUsername
        self.maximumFailuresPerAddress = maximumFailuresPerAddress
        self.window = window
        self.capacity = capacity
        self.table = Mutex(FailureTable(startedAt: clock.now))
    }

    /// One login attempt, counted as a failure until ``succeeded(_:)`` takes it back.
    public struct Attempt: Sendable {
        fileprivate let username: String
        fileprivate let address: String?
        fileprivate let startedAt: Date
    }

    /// Counts a login attempt for `username` from `address` as a failure, or throws 155 if either
    /// has used up its failures.
    public func begin(username: String, address: String?) throws -> Attempt {
        let now = clock.now
        let allowed = table.withLock { table -> Bool in
            table.rotate(now: now, window: window.seconds, capacity: capacity)
            let userKey = "user:" + username
            if table.recentCount(userKey, now: now, window: window.seconds) >= maximumFailuresPerUsername { return false }
            if let address, table.recentCount("addr:" + address, now: now, window: window.seconds) >= maximumFailuresPerAddress {
                return false
            }
            table.append(userKey, now, keeping: maximumFailuresPerUsername)
            if let address { table.append("addr:" + address, now, keeping: maximumFailuresPerAddress) }
            return true
        }
        guard allowed else { throw ParseError(code: 155, message: "Too many failed logins; try again later.", httpStatus: 429) }
        return Attempt(username: username, address: address, startedAt: now)
    }

    /// Takes back a successful attempt: the username's failures are forgotten and the address is
    /// no longer charged for it.
    public func succeeded(_ attempt: Attempt) {
        table.withLock { table in
            table.remove("user:" + attempt.username)
            if let address = attempt.address { table.removeOne("addr:" + address, attempt.startedAt) }
        }
    }

    /// How many keys the table holds now.
    public var keyCount: Int { table.withLock { $0.keyCount } }
}

/// Failure times by key, in two generations: a key is found in either, written to the current one,
/// and the previous generation is dropped whole when the current one fills up or is a window old.
/// Every key and its failures outlive a window in the table unless ``LoginThrottle/capacity``
/// distinct keys arrive first.
private struct FailureTable {
    var current: [String: [Date]] = [:]
    var previous: [String: [Date]] = [:]
    var startedAt: Date

    init(startedAt: Date) { self.startedAt = startedAt }

    var keyCount: Int { current.count + previous.count }

    mutating func rotate(now: Date, window: Double, capacity: Int) {
        guard current.count >= capacity / 2 || now.timeIntervalSince(startedAt) >= window else { return }
        previous = current
        current = [:]
        startedAt = now
    }

    func recentCount(_ key: String, now: Date, window: Double) -> Int {
        let oldest = now.addingTimeInterval(-window)
        return (current[key] ?? previous[key] ?? []).reduce(0) { $1 > oldest ? $0 + 1 : $0 }
    }

    /// Adds a failure at `time`, keeping the latest `keeping` (more never change the answer).
    mutating func append(_ key: String, _ time: Date, keeping: Int) {
        var times = current[key] ?? previous.removeValue(forKey: key) ?? []
        times.append(time)
        if times.count > keeping { times.removeFirst(times.count - keeping) }
        current[key] = times
    }

    mutating func remove(_ key: String) {
        current[key] = nil
        previous[key] = nil
    }

    mutating func removeOne(_ key: String, _ time: Date) {
        if let index = current[key]?.lastIndex(of: time) {
            current[key]!.remove(at: index)
        } else if let index = previous[key]?.lastIndex(of: time) {
            previous[key]!.remove(at: index)
        }
    }
}
