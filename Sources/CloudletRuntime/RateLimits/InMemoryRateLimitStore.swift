import Foundation
import Synchronization

/// Rate limit state in this process's memory: the generic cell rate algorithm, one timestamp
/// per key (when the key's quota is whole again). A key whose quota is whole is the same as no
/// key, so it is dropped; past ``capacity`` keys the ones nearest to whole go first.
public final class InMemoryRateLimitStore: RateLimitStore {
    /// The most keys held at once.
    public let capacity: Int
    private let fullAt = Mutex<[String: Date]>([:])

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState] {
        chargeNow(charges, now: now)
    }

    /// ``charge(_:now:)`` without suspending.
    public func chargeNow(_ charges: [RateLimitCharge], now: Date) -> [RateLimitState] {
        fullAt.withLock { table in
            var states: [RateLimitState] = []
            var next: [Date] = []
            for charge in charges {
                let start = max(table[charge.key] ?? now, now)
                states.append(RateLimitState(charge.quota, wait: start.timeIntervalSince(now)))
                next.append(start.addingTimeInterval(charge.quota.interval))
            }
            if states.allSatisfy(\.allowed) {
                for (charge, after) in zip(charges, next) { table[charge.key] = after }
                if table.count > capacity { Self.trim(&table, now: now, to: capacity) }
            }
            return states
        }
    }

    public func stateNow(_ charge: RateLimitCharge, now: Date) -> RateLimitState? {
        let start = fullAt.withLock { max($0[charge.key] ?? now, now) }
        return RateLimitState(charge.quota, wait: start.timeIntervalSince(now))
    }

    /// How many keys are held now.
    public var keyCount: Int { fullAt.withLock { $0.count } }

    private static func trim(_ table: inout [String: Date], now: Date, to capacity: Int) {
        table = table.filter { $0.value > now }
        guard table.count > capacity else { return }
        let keep = table.sorted { $0.value > $1.value }.prefix(capacity * 9 / 10)
        table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
