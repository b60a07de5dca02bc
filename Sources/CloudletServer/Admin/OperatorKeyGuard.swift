import Cloudlet
import CloudletRuntime
import Foundation
import Hummingbird
import Synchronization

/// Checks the operator key wherever it is needed (the admin API, the hook logs, `/metrics`) and
/// throttles wrong keys by client address: an address may present ``maximumFailuresPerAddress``
/// wrong keys within ``window``; past that it is refused with 429 (code 155) until old failures age
/// out, whatever key it sends. The right key from another address is never refused.
///
/// As for logins, an attempt counts as a failure from the moment it arrives and is taken back when
/// the key matched, so attempts sent all at once cannot get past the limit. The client address is
/// the socket's peer, or `X-Forwarded-For` from a `--trusted-proxy`. The table holds at most
/// ``capacity`` addresses; under a flood of more, those untouched the longest are forgotten first.
public final class OperatorKeyGuard: Sendable {
    /// The operator key; nil when none is configured (every request is refused).
    public let key: OperatorKey?
    /// How many wrong keys one address may present within ``window``.
    public static let maximumFailuresPerAddress = 10
    /// How long a wrong key counts.
    public static let window: Duration = .seconds(60)
    /// The most addresses remembered at once.
    public static let capacity = 100_000
    private let trustedProxies: TrustedProxies
    private let clock: any CloudletClock
    private let failures: Mutex<FailureTable>

    /// A guard of `key`, naming clients as `trustedProxies` says, on `clock`.
    public init(key: OperatorKey?, trustedProxies: TrustedProxies = .none, clock: any CloudletClock) {
        self.key = key
        self.trustedProxies = trustedProxies
        self.clock = clock
        failures = Mutex(FailureTable(startedAt: clock.now))
    }

    /// Throws 401 (code 119) unless `request` carries the operator key, or 429 (code 155) if its
    /// client address has presented too many wrong keys.
    func authorize(_ request: Request, context: CloudletRequestContext) throws {
        // A request without a socket peer (handed to the router in-process) has no address to count.
        guard
            let address = trustedProxies.clientAddress(
                peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: ParseHeaders.forwardedFor])
        else { return try OperatorKey.require(key, in: request.headers) }
        let entry = "addr:" + address
        let now = clock.now
        let window = Self.window.seconds
        let allowed = failures.withLock { table -> Bool in
            table.rotate(now: now, window: window, capacity: Self.capacity)
            guard table.recentCount(entry, now: now, window: window) < Self.maximumFailuresPerAddress else { return false }
            table.append(entry, now, keeping: Self.maximumFailuresPerAddress)
            return true
        }
        guard allowed else { throw ParseError(code: 155, message: "Too many wrong operator keys; try again later.", httpStatus: 429) }
        try OperatorKey.require(key, in: request.headers)
        failures.withLock { $0.removeOne(entry, now) }
    }
}
