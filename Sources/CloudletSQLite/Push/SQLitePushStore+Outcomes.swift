import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// Outcomes of push deliveries, the counts they add to, and the `_PushStatus` fields made from them.
extension SQLitePushStore {
    /// Ended deliveries to count: (job, sent, device type, reason) → how many.
    private typealias Tally = [PushCountKey: Int]

    private struct PushCountKey: Hashable {
        var jobId: String
        var sent: Bool
        var deviceType: String
        var reason: String
    }

    @discardableResult
    public func recordPushResult(_ result: PushDeliveryResult, owner: String, now: Date) async throws -> Bool {
        let delivery = result.delivery
        guard let ended = result.ending else { return false }
        return try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM work_queue WHERE id = ? AND lease_owner = ?").execute(arguments: [delivery.id, owner])
            guard db.changesCount > 0 else { return false }
            let key = PushCountKey(jobId: delivery.jobId, sent: ended.sent, deviceType: delivery.deviceType, reason: ended.reason)
            try Self.add([key: 1], db)
            switch result.resolution {
            case .invalidToken(_, let unregisteredAt):
                try self.unsetToken(of: delivery, unregisteredAt: unregisteredAt, now: now, db)
            case .jobFailed(let reason):
                try self.finishPushJob(delivery.jobId, .failed(reason: reason), now: now, db)
                return true
            default:
                break
            }
            try self.updatePushCounts(of: delivery.jobId, now: now, db)
            return true
        }
    }

    /// Writes job `id`'s counts to its `_PushStatus` object, or ends the job when every recipient
    /// has its delivery and none is pending.
    func updatePushCounts(of id: String, now: Date, _ db: Database) throws {
        guard let progress = try Self.progress(of: id, db), !progress.isFinished else { return }
        if progress.isExpanded, progress.pending == 0 {
            try finishPushJob(id, .completed, now: now, db)
        } else {
            try setPushCounts(of: id, status: nil, errorMessage: nil, now: now, db)
        }
    }

    /// Unsets the installation's `deviceToken` (as Parse Server does) if it is still the token of
    /// `delivery` and, when APNs gave the time the token stopped working, the installation was last
    /// updated before that time.
    private func unsetToken(of delivery: PushDelivery, unregisteredAt: Date?, now: Date, _ db: Database) throws {
        let unregistered = unregisteredAt.map(ParseDate.string(from:))
        try database.publishingUpdates(of: "_Installation", ids: [delivery.installationId], db) {
            try db.cachedStatement(
                sql: """
                    UPDATE objects SET data = json_remove(data, '$.deviceToken'), updated_at = ?
                    WHERE class = '_Installation' AND id = ? AND json_extract(data, '$.deviceToken') = ? AND (?4 IS NULL OR updated_at < ?4)
                    """
            ).execute(arguments: [ParseDate.string(from: now), delivery.installationId, delivery.token, unregistered])
        }
    }

    private static func add(_ tally: Tally, _ db: Database) throws {
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO push_job_counts (job_id, sent, device_type, reason, n) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (job_id, sent, device_type, reason) DO UPDATE SET n = n + excluded.n
                """)
        for (key, count) in tally { try upsert.execute(arguments: [key.jobId, key.sent, key.deviceType, key.reason, count]) }
    }

    /// Ends job `id` as `ending` says, inside the transaction of `db`, unless it has ended already:
    /// its deliveries still queued end (a send of one in flight then records nothing), and so does
    /// its fan-out.
    func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date, _ db: Database) throws {
        guard try Self.progress(of: id, db)?.isFinished != true else { return }
        var errorMessage: String?
        switch ending {
        case .failed(let reason):
            errorMessage = reason
            try Self.endQueued(of: id, reason: reason, db)
        case .expired:
            try Self.endQueued(of: id, reason: PushJobCounts.expiredReason, db)
        case .completed, .untouched:
            break
        }
        try db.execute(sql: "UPDATE push_jobs SET phase = 'finished' WHERE job_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM work_queue WHERE id = ?", arguments: [PushDelivery.fanOutId(job: id)])
        guard ending != .untouched else { return }
        try setPushCounts(of: id, status: ending, errorMessage: errorMessage, now: now, db)
    }

    /// Ends every queued delivery of job `id` unsent with `reason`, and counts them.
    private static func endQueued(of id: String, reason: String, _ db: Database) throws {
        // The job's deliveries, found by their ids' common start.
        let first = PushDelivery.workId(job: id, installation: "")
        let rows = try Row.fetchAll(
            db,
            sql: """
                DELETE FROM work_queue WHERE id >= ? AND id < ? AND kind = ? AND json_extract(payload, '$.job') = ?
                RETURNING json_extract(payload, '$.deviceType')
                """,
            arguments: [first, String(first.dropLast()) + ".", WorkKind.pushDelivery.rawValue, id])
        var tally: Tally = [:]
        for row in rows { tally[PushCountKey(jobId: id, sent: false, deviceType: row[0] ?? "", reason: reason), default: 0] += 1 }
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
        guard let original = try ObjectRows.fetch(db, "_PushStatus", id) else { return }
        var object = original
        object.fields.merge(fields) { _, new in new }
        object.updatedAt = now
        try database.schema.check(object, db)
        let row = ObjectText(object)
        try db.cachedStatement(sql: "UPDATE objects SET updated_at = ?, data = ? WHERE class = '_PushStatus' AND id = ?")
            .execute(arguments: [row.updatedAt, row.fields, id])
        database.publishLive(.update, object, original: original, db)
    }
}
