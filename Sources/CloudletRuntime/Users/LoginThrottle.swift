import Cloudlet
import Foundation
import Synchronization

/// Limits failed logins within a sliding window, against password guessing, without letting anyone
/// lock another person out of their account:
///
/// - one client address may fail ``maximumFailuresPerAccountAndAddress`` times at one account: the
///   limit is on the pair, so failures from one address never refuse another address;
/// - one client address may fail ``maximumFailuresPerAddress`` times across all accounts;
/// - once one account has failed ``busyAccountFailures`` times from all addresses together (a guess
///   spread over many addresses), each address gets only ``maximumFailuresPerAddressOnBusyAccount``
///   at it: the guess slows down, while the owner still has a try from any address.
///
/// A key past its limit is refused (429, code 155) until old failures age out. An attempt counts
/// as a failure from the moment it starts, before the password is checked, and is taken back only
/// when the password matched: so logins sent all at once cannot all reach the slow password check.
/// The table holds at most ``capacity`` keys however many distinct usernames and addresses a flood
/// brings; past that, the keys untouched the longest are forgotten first.
public final class LoginThrottle: Sendable {
    /// How many failures one address may have at one account within ``window``.
    public let maximumFailuresPerAccountAndAddress: Int
    /// How many failures one client address may have within ``window`` (across accounts).
    public let maximumFailuresPerAddress: Int
    /// How many failures of one account (from all addresses) within ``window`` make it busy.
    public let busyAccountFailures: Int
    /// How many failures one address may have at a busy account within ``window``.
    public let maximumFailuresPerAddressOnBusyAccount: Int
    /// How long a failure counts.
    public let window: Duration
    /// The most keys (accounts, addresses and pairs of them) remembered at once.
    public let capacity: Int
    private let clock: any CloudletClock
    private let table: Mutex<FailureTable>

    /// A throttle reading time from `clock`, with Cloudlet's defaults: a minute's window, 5
    /// failures per address at one account, 20 per address across accounts, and 1 per address at
    /// an account that failed 20 times from all addresses; at most 100,000 keys.
    public init(
        clock: any CloudletClock, maximumFailuresPerAccountAndAddress: Int = 5, maximumFailuresPerAddress: Int = 20,
        busyAccountFailures: Int = 20, maximumFailuresPerAddressOnBusyAccount: Int = 1, window: Duration = .seconds(60),
        capacity: Int = 100_000
    ) {
        self.clock = clock
        self.maximumFailuresPerAccountAndAddress = maximumFailuresPerAccountAndAddress
        self.maximumFailuresPerAddress = maximumFailuresPerAddress
        self.busyAccountFailures = busyAccountFailures
        self.maximumFailuresPerAddressOnBusyAccount = min(maximumFailuresPerAddressOnBusyAccount, maximumFailuresPerAccountAndAddress)
        self.window = window
        self.capacity = capacity
        self.table = Mutex(FailureTable(startedAt: clock.now))
    }

    /// One login attempt, counted as a failure until ``succeeded(_:)`` takes it back.
    public struct Attempt: Sendable {
        fileprivate let keys: Keys
        fileprivate let startedAt: Date
    }

    /// The table's keys one attempt is counted under.
    fileprivate struct Keys: Sendable {
        let account: String
        /// Nil when the address is not known (no socket peer): then the pair is the account alone.
        let address: String?
        let pair: String

        init(username: String, address: String?) {
            account = "user:" + username
            self.address = address.map { "addr:" + $0 }
            pair = "pair:" + (address ?? "") + "|" + username
        }
    }

    /// Counts a login attempt for `username` from `address` as a failure, or throws 155 if the
    /// address has used up its failures at that account or across accounts.
    public func begin(username: String, address: String?) throws -> Attempt {
        let now = clock.now
        let keys = Keys(username: username, address: address)
        let seconds = window.seconds
        let allowed = table.withLock { table -> Bool in
            table.rotate(now: now, window: seconds, capacity: capacity)
            let isBusy = table.recentCount(keys.account, now: now, window: seconds) >= busyAccountFailures
            let pairLimit = isBusy ? maximumFailuresPerAddressOnBusyAccount : maximumFailuresPerAccountAndAddress
            guard table.recentCount(keys.pair, now: now, window: seconds) < pairLimit else { return false }
            if let address = keys.address, table.recentCount(address, now: now, window: seconds) >= maximumFailuresPerAddress {
                return false
            }
            table.append(keys.pair, now, keeping: maximumFailuresPerAccountAndAddress)
            if let address = keys.address { table.append(address, now, keeping: maximumFailuresPerAddress) }
            table.append(keys.account, now, keeping: busyAccountFailures)
            return true
        }
        guard allowed else { throw ParseError(code: 155, message: "Too many failed logins; try again later.", httpStatus: 429) }
        return Attempt(keys: keys, startedAt: now)
    }

    /// Takes back a successful attempt: the address's failures at the account are forgotten, and
    /// neither the address nor the account is charged for it.
    public func succeeded(_ attempt: Attempt) {
        table.withLock { table in
            table.remove(attempt.keys.pair)
            if let address = attempt.keys.address { table.removeOne(address, attempt.startedAt) }
            table.removeOne(attempt.keys.account, attempt.startedAt)
        }
    }

    /// How many keys the table holds now.
    public var keyCount: Int { table.withLock { $0.keyCount } }
}
