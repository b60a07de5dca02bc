import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// Outcomes of push deliveries, the counts they add to, and the `_PushStatus` fields made from them.
extension SQLiteObjectStorage {
    /// Ended deliveries to count: (job, sent, device type, reason) → how many.
    private typealias Tally = [PushCountKey: Int]

    private struct PushCountKey: Hashable {
        var jobId: String
        var sent: Bool
        var deviceType: String
        var reason: String
    }

    public func recordPushResults(_ results: [PushDeliveryResult], now: Date) async throws {
        guard !results.isEmpty else { return }
        try await write { db in
            var tally: Tally = [:]
            var failedJobs: [String: String] = [:]
            try Self.endSent(results, &tally, db)
            for result in results {
                let delivery = result.delivery
                switch result.resolution {
                case .sent:
                    break
                case .failed(let reason):
                    try Self.end(delivery, state: "failed", reason: reason, &tally, db)
                case .invalidToken(let reason, let unregisteredAt):
                    if try Self.end(delivery, state: "failed", reason: reason, &tally, db) {
                        try Self.unsetToken(of: delivery, unregisteredAt: unregisteredAt, now: now, db)
                    }
                case .expired:
                    try Self.end(delivery, state: "expired", reason: PushJobCounts.expiredReason, &tally, db)
                case .jobFailed(let reason):
                    if try Self.end(delivery, state: "failed", reason: reason, &tally, db) { failedJobs[delivery.jobId] = reason }
                case .retry(let reason, let time):
                    try db.cachedStatement(
                        sql: "UPDATE push_deliveries SET due_at = ?, lease_until = NULL, reason = ? WHERE seq = ? AND state = 'pending'"
                    ).execute(arguments: [time.timeIntervalSince1970, reason, delivery.sequence])
                }
            }
            try Self.add(tally, db)
            let touched = Set(tally.keys.map(\.jobId)).subtracting(failedJobs.keys)
            for jobId in touched { try self.setPushCounts(of: jobId, status: nil, errorMessage: nil, now: now, db) }
            for (jobId, reason) in failedJobs { try self.finishPushJob(jobId, .failed(reason: reason), now: now, db) }
        }
    }

    /// Ends the sent deliveries among `results` that are still pending, in one statement (most
    /// results are sends), and tallies them.
    private static func endSent(_ results: [PushDeliveryResult], _ tally: inout Tally, _ db: Database) throws {
        let sent = results.filter { $0.resolution == .sent }.map { String($0.delivery.sequence) }
        guard !sent.isEmpty else { return }
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    UPDATE push_deliveries SET state = 'sent', reason = NULL, lease_until = NULL
                    WHERE seq IN (SELECT value FROM json_each(?)) AND state = 'pending' RETURNING job_id, device_type
                    """),
            arguments: ["[" + sent.joined(separator: ",") + "]"])
        while let row = try rows.next() {
            tally[PushCountKey(jobId: row[0], sent: true, deviceType: row[1], reason: ""), default: 0] += 1
        }
    }

    /// Ends `delivery` unsent, in `state`, if it is still pending, and tallies it; returns whether it was.
    @discardableResult
    private static func end(_ delivery: PushDelivery, state: String, reason: String?, _ tally: inout Tally, _ db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: "UPDATE push_deliveries SET state = ?, reason = ?, lease_until = NULL WHERE seq = ? AND state = 'pending'"
        ).execute(arguments: [state, reason, delivery.sequence])
        guard db.changesCount > 0 else { return false }
        tally[PushCountKey(jobId: delivery.jobId, sent: false, deviceType: delivery.deviceType, reason: reason ?? ""), default: 0] += 1
        return true
    }

    /// Unsets the installation's `deviceToken` (as Parse Server does) if it is still the token of
    /// `delivery` and, when APNs gave the time the token stopped working, the installation was last
    /// updated before that time.
    private static func unsetToken(of delivery: PushDelivery, unregisteredAt: Date?, now: Date, _ db: Database) throws {
        let unregistered = unregisteredAt.map(ParseDate.string(from:))
        try db.cachedStatement(
            sql: """
                UPDATE objects SET data = json_remove(data, '$.deviceToken'), updated_at = ?
                WHERE class = '_Installation' AND id = ? AND json_extract(data, '$.deviceToken') = ? AND (?4 IS NULL OR updated_at < ?4)
                """
        ).execute(arguments: [ParseDate.string(from: now), delivery.installationId, delivery.token, unregistered])
    }

    private static func add(_ tally: Tally, _ db: Database) throws {
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO push_job_counts (job_id, sent, device_type, reason, n) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (job_id, sent, device_type, reason) DO UPDATE SET n = n + excluded.n
                """)
        for (key, count) in tally { try upsert.execute(arguments: [key.jobId, key.sent, key.deviceType, key.reason, count]) }
    }

    /// Ends job `id` as `ending` says, inside the transaction of `db`.
    func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date, _ db: Database) throws {
        var errorMessage: String?
        switch ending {
        case .failed(let reason):
            errorMessage = reason
            try Self.endPending(of: id, state: "failed", reason: reason, db)
        case .expired:
            try Self.endPending(of: id, state: "expired", reason: PushJobCounts.expiredReason, db)
        case .completed, .untouched:
            break
        }
        try db.execute(sql: "UPDATE push_jobs SET phase = 'finished', wake_at = NULL WHERE job_id = ?", arguments: [id])
        guard ending != .untouched else { return }
        try setPushCounts(of: id, status: ending, errorMessage: errorMessage, now: now, db)
    }

    /// Ends every pending delivery of job `id` in `state` with `reason`, and counts them.
    private static func endPending(of id: String, state: String, reason: String, _ db: Database) throws {
        let byType = try Row.fetchAll(
            db, sql: "SELECT device_type, count(*) AS n FROM push_deliveries WHERE job_id = ? AND state = 'pending' GROUP BY device_type",
            arguments: [id])
        try db.execute(
            sql: "UPDATE push_deliveries SET state = ?, reason = ?, lease_until = NULL WHERE job_id = ? AND state = 'pending'",
            arguments: [state, reason, id])
        var tally: Tally = [:]
        for row in byType { tally[PushCountKey(jobId: id, sent: false, deviceType: row["device_type"], reason: reason)] = row["n"] }
        try add(tally, db)
    }

    /// Writes job `id`'s counts to its `_PushStatus` object, and its final status when it ends.
    func setPushCounts(of id: String, status ending: PushJobEnding?, errorMessage: String?, now: Date, _ db: Database) throws {
        // Cached: every recorded batch and every page written sets the counts.
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT count FROM push_jobs WHERE job_id = ?"), arguments: [id]) ?? 0
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT sent, device_type, reason, n FROM push_job_counts WHERE job_id = ?"), arguments: [id])
        var counts = PushJobCounts(count: count)
        for row in rows { counts.add(row["n"], sent: row["sent"], deviceType: row["device_type"], reason: row["reason"]) }
        var fields = counts.fields
        if let ending { fields["status"] = .string(counts.status(ending: ending).rawValue) }
        if let errorMessage { fields["errorMessage"] = .string(errorMessage) }
        try setPushStatus(id, fields, now: now, db)
    }

    /// Sets `fields` on the `_PushStatus` object `id`, if it still exists.
    func setPushStatus(_ id: String, _ fields: [String: ParseValue], now: Date, _ db: Database) throws {
        guard var object = try Self.fetch(db, "_PushStatus", id) else { return }
        object.fields.merge(fields) { _, new in new }
        object.updatedAt = now
        try schema.check(object, db)
        let row = ObjectText(object)
        try db.cachedStatement(sql: "UPDATE objects SET updated_at = ?, data = ? WHERE class = '_PushStatus' AND id = ?")
            .execute(arguments: [row.updatedAt, row.fields, id])
    }
}
