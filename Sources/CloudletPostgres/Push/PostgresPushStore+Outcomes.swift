import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// Outcomes of push deliveries, the counts they add to, and the `_PushStatus` fields made from them.
extension PostgresPushStore {
    /// Ended deliveries to count: (sent, device type, reason) → how many, for one job.
    private typealias Tally = [PushCountKey: Int]

    private struct PushCountKey: Hashable {
        var sent: Bool
        var deviceType: String
        var reason: String
    }

    @discardableResult
    public func recordPushResult(_ result: PushDeliveryResult, owner: String, now: Date) async throws -> Bool {
        let delivery = result.delivery
        guard let ended = result.ending else { return false }
        return try await objects.writer.write { connection, afterCommit in
            try await connection.run("SELECT 1 FROM \(jobs) WHERE job_id = $1 FOR UPDATE", PostgresBindings(delivery.jobId), logger: logger)
            let deleted = try await connection.count(
                "DELETE FROM \(work) WHERE id = $1 AND lease_owner = $2 RETURNING 1", PostgresBindings(delivery.id, owner), logger: logger)
            guard deleted > 0 else { return false }
            try await add([PushCountKey(sent: ended.sent, deviceType: delivery.deviceType, reason: ended.reason): 1], to: delivery.jobId, on: connection)
            switch result.resolution {
            case .invalidToken(_, let unregisteredAt):
                try await unsetToken(of: delivery, unregisteredAt: unregisteredAt, now: now, on: connection)
            case .jobFailed(let reason):
                try await finishPushJob(delivery.jobId, .failed(reason: reason), now: now, on: connection, afterCommit: &afterCommit)
                return true
            default:
                break
            }
            try await updatePushCounts(of: delivery.jobId, now: now, on: connection, afterCommit: &afterCommit)
            return true
        }
    }

    public func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws {
        try await objects.writer.write { connection, afterCommit in
            try await finishPushJob(id, ending, now: now, on: connection, afterCommit: &afterCommit)
        }
    }

    /// Writes job `id`'s counts to its `_PushStatus` object, or ends the job when every recipient
    /// has its delivery and none is pending.
    func updatePushCounts(of id: String, now: Date, on connection: PostgresConnection, afterCommit: inout [@Sendable () -> Void]) async throws {
        guard let progress = try await progress(of: id, locking: true, on: connection), !progress.isFinished else { return }
        if progress.isExpanded, progress.pending == 0 {
            try await finishPushJob(id, .completed, now: now, on: connection, afterCommit: &afterCommit)
        } else {
            try await setPushCounts(of: id, status: nil, errorMessage: nil, now: now, on: connection, afterCommit: &afterCommit)
        }
    }

    /// Ends job `id` as `ending` says, inside the transaction of `connection`, unless it has ended
    /// already: its deliveries still queued end (a send of one in flight then records nothing), and
    /// so does its fan-out.
    private func finishPushJob(
        _ id: String, _ ending: PushJobEnding, now: Date, on connection: PostgresConnection, afterCommit: inout [@Sendable () -> Void]
    ) async throws {
        guard try await progress(of: id, locking: true, on: connection)?.isFinished != true else { return }
        var errorMessage: String?
        switch ending {
        case .failed(let reason):
            errorMessage = reason
            try await endQueued(of: id, reason: reason, on: connection)
        case .expired:
            try await endQueued(of: id, reason: PushJobCounts.expiredReason, on: connection)
        case .completed, .untouched:
            break
        }
        try await connection.run("UPDATE \(jobs) SET phase = 'finished' WHERE job_id = $1", PostgresBindings(id), logger: logger)
        try await connection.run("DELETE FROM \(work) WHERE id = $1", PostgresBindings(PushDelivery.fanOutId(job: id)), logger: logger)
        guard ending != .untouched else { return }
        try await setPushCounts(of: id, status: ending, errorMessage: errorMessage, now: now, on: connection, afterCommit: &afterCommit)
    }

    /// Ends every queued delivery of job `id` unsent with `reason`, and counts them.
    private func endQueued(of id: String, reason: String, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings(PushDelivery.workId(job: id, installation: ""), WorkKind.pushDelivery.rawValue)
        binds.append(id)
        // The job's deliveries, found by their ids' common start and the job they name.
        let rows = try await connection.run(
            """
            DELETE FROM \(work) WHERE starts_with(id, $1) AND kind = $2 AND payload::jsonb ->> 'job' = $3
            RETURNING coalesce(payload::jsonb ->> 'deviceType', '')
            """, binds, logger: logger)
        var tally: Tally = [:]
        for try await deviceType in rows.decode(String.self) { tally[PushCountKey(sent: false, deviceType: deviceType, reason: reason), default: 0] += 1 }
        try await add(tally, to: id, on: connection)
    }

    private func add(_ tally: Tally, to id: String, on connection: PostgresConnection) async throws {
        for (key, n) in tally {
            var binds = PostgresBindings(id)
            binds.append(key.sent)
            binds.append(key.deviceType.postgresText)
            binds.append(key.reason.postgresText)
            binds.append(n)
            try await connection.run(
                """
                INSERT INTO \(counts) AS c (job_id, sent, device_type, reason, n) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (job_id, sent, device_type, reason) DO UPDATE SET n = c.n + excluded.n
                """, binds, logger: logger)
        }
    }

    /// Unsets the installation's `deviceToken` (as Parse Server does) if it is still the token of
    /// `delivery` and, when APNs gave the time the token stopped working, the installation was last
    /// updated before that time.
    private func unsetToken(of delivery: PushDelivery, unregisteredAt: Date?, now: Date, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings(ParseDate.string(from: now), delivery.installationId, delivery.token)
        binds.append(unregisteredAt.map(ParseDate.string(from:)))
        _ = try await objects.notifyingLiveUpdates(of: "_Installation", ids: [delivery.installationId], on: connection) {
            try await connection.run(
                """
                UPDATE \(objects.table) SET data = data - 'deviceToken', updated_at = $1
                WHERE class = '_Installation' AND id = $2 AND data -> 'deviceToken' = to_jsonb($3::text)
                    AND ($4::text IS NULL OR updated_at COLLATE "C" < $4)
                """, binds, logger: logger)
        }
    }

    /// Writes job `id`'s counts to its `_PushStatus` object, and its final status when it ends.
    private func setPushCounts(
        of id: String, status ending: PushJobEnding?, errorMessage: String?, now: Date, on connection: PostgresConnection,
        afterCommit: inout [@Sendable () -> Void]
    ) async throws {
        let binds = PostgresBindings(id)
        var count = 0
        for try await made in try await connection.run("SELECT count FROM \(jobs) WHERE job_id = $1", binds, logger: logger).decode(Int.self) {
            count = made
        }
        var counts = PushJobCounts(count: count)
        let rows = try await connection.run("SELECT n, sent, device_type, reason FROM \(self.counts) WHERE job_id = $1", binds, logger: logger)
        for try await (n, sent, deviceType, reason) in rows.decode((Int, Bool, String, String).self) {
            counts.add(n, sent: sent, deviceType: deviceType, reason: reason)
        }
        var fields = counts.fields
        if let ending { fields["status"] = .string(counts.status(ending: ending).rawValue) }
        if let errorMessage { fields["errorMessage"] = .string(errorMessage) }
        try await setPushStatus(id, fields, now: now, on: connection, afterCommit: &afterCommit)
    }

    /// Sets `fields` on the `_PushStatus` object `id`, if it still exists, its types checked.
    func setPushStatus(
        _ id: String, _ fields: [String: ParseValue], now: Date, on connection: PostgresConnection, afterCommit: inout [@Sendable () -> Void]
    ) async throws {
        guard let original = try await objects.lockedObject("_PushStatus", id, on: connection) else { return }
        var object = original
        object.fields.merge(fields) { _, new in new }
        object.updatedAt = now
        if let commit = try await objects.fieldTypes.check(object, on: connection, logger: logger) { afterCommit.append(commit) }
        let row = ObjectText(object)
        var binds = PostgresBindings(row.updatedAt, row.fields)
        binds.append("_PushStatus")
        binds.append(id)
        try await connection.run(
            "UPDATE \(objects.table) SET updated_at = $1, data = $2::jsonb WHERE class = $3 AND id = $4", binds, logger: logger)
        try await objects.notifyLive(.update, object, original: original, on: connection)
    }
}
