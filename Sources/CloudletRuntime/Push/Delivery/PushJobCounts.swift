import Cloudlet

/// A job's ended deliveries, counted as `_PushStatus` shows them: `count` (deliveries made),
/// `numSent`, `numFailed` (expired ones included, with the reason `Expired`), `sentPerType`,
/// `failedPerType` and `failedPerReason`.
public struct PushJobCounts: Sendable, Hashable {
    /// Deliveries made so far (one per recipient with a device token).
    public var count: Int
    /// Deliveries sent.
    public var numSent = 0
    /// Deliveries that failed or expired.
    public var numFailed = 0
    /// Deliveries sent, by device type.
    public var sentPerType: [String: Int] = [:]
    /// Deliveries that failed or expired, by device type.
    public var failedPerType: [String: Int] = [:]
    /// Deliveries that failed or expired, by reason (the provider's, `NoProvider` or `Expired`).
    public var failedPerReason: [String: Int] = [:]

    /// The reason counted for deliveries that expired before they were sent.
    public static let expiredReason = "Expired"

    public init(count: Int) {
        self.count = count
    }

    /// Adds `n` deliveries to `deviceType` that were sent, or that failed with `reason`.
    public mutating func add(_ n: Int, sent: Bool, deviceType: String, reason: String) {
        if sent {
            numSent += n
            sentPerType[deviceType, default: 0] += n
        } else {
            numFailed += n
            failedPerType[deviceType, default: 0] += n
            failedPerReason[reason, default: 0] += n
        }
    }

    /// The `_PushStatus` fields of these counts.
    public var fields: [String: ParseValue] {
        func object(_ counts: [String: Int]) -> ParseValue { .object(counts.mapValues { .number(Double($0)) }) }
        return [
            "count": .number(Double(count)), "numSent": .number(Double(numSent)), "numFailed": .number(Double(numFailed)),
            "sentPerType": object(sentPerType), "failedPerType": object(failedPerType), "failedPerReason": object(failedPerReason),
        ]
    }

    /// The final status of a job that ends as `ending` with these counts: `failed` for a failed
    /// job; `succeeded` if one delivery was sent or a completed job had no recipient; `expired` if
    /// it expired, or every delivery did; else `failed`.
    public func status(ending: PushJobEnding) -> PushJobStatus {
        if case .failed = ending { return .failed }
        if numSent > 0 { return .succeeded }
        if ending == .expired { return .expired }
        if count == 0 { return .succeeded }
        return failedPerReason[Self.expiredReason] == numFailed ? .expired : .failed
    }
}
