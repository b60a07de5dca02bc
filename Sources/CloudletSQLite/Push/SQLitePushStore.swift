import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The app's push jobs' fan-out, beside its objects: `push_jobs` (each `_PushStatus` job's fan-out:
/// phase, cursor, count) and `push_job_counts` (ended deliveries by outcome, device type and
/// reason: a job's pending deliveries are its count less these). The deliveries themselves are rows
/// of `work_queue` (``WorkKind/pushDelivery``), their details in the payload. A trigger enters
/// every new `_PushStatus` object in `push_jobs` and queues its fan-out in the transaction that
/// records it, whatever wrote it (see ``SQLitePushSchema``).
public struct SQLitePushStore: PushDeliveryStorage {
    let database: SQLiteAppDatabase

    /// The push jobs' fan-out of the app whose database is `database`.
    public init(_ database: SQLiteAppDatabase) {
        self.database = database
    }

    public func pushJobProgress(_ id: String) async throws -> PushJobProgress? {
        try await database.pool.read { db in try Self.progress(of: id, db) }
    }

    /// How job `id`'s fan-out stands, in the transaction of `db`.
    static func progress(of id: String, _ db: Database) throws -> PushJobProgress? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT cursor, expanded, phase = 'finished',
                        count - (SELECT coalesce(sum(n), 0) FROM push_job_counts c WHERE c.job_id = j.job_id) AS pending
                    FROM push_jobs j WHERE job_id = ?
                    """),
            arguments: [id]
        ).map { PushJobProgress(jobId: id, cursor: $0[0], isExpanded: $0[1], isFinished: $0[2], pending: $0[3]) }
    }

    public func schedulePushJob(_ id: String, now: Date) async throws {
        try await database.write { db in
            try self.setPushStatus(id, ["status": .string(PushJobStatus.scheduled.rawValue)], now: now, db)
        }
    }

    public func startPushJob(_ id: String, now: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE push_jobs SET phase = 'running' WHERE job_id = ? AND phase != 'finished'", arguments: [id])
            try self.setPushStatus(id, ["status": .string(PushJobStatus.running.rawValue)], now: now, db)
        }
    }

    public func pushRecipients(_ page: ParseQuery) async throws -> [PushRecipient] {
        let select = try SQLiteQueryBuilder.select(
            StorageQuery(query: page, readerIdentities: nil),
            columns: "id, \(Self.textField("deviceType")), \(Self.textField("deviceToken")), \(Self.textField("pushType"))")
        return try await database.read(select) { db in
            var recipients: [PushRecipient] = []
            let rows = try Row.fetchCursor(db, sql: select.sql, arguments: select.arguments)
            while let row = try rows.next() {
                recipients.append(PushRecipient(installationId: row[0], deviceType: row[1] ?? "", token: row[2], pushType: row[3]))
            }
            return recipients
        }
    }

    /// The SQL of an installation's field `name` when it is a string, else NULL.
    private static func textField(_ name: String) -> String {
        "CASE json_type(data, '$.\(name)') WHEN 'text' THEN json_extract(data, '$.\(name)') END"
    }

    public func expandPushJob(
        _ id: String, recipients: [PushRecipient], cursor: String?, isLast: Bool, badgeIncrement: Int?, now: Date
    ) async throws {
        let kind = WorkKind.pushDelivery.rawValue
        try await database.write { db in
            guard try Self.progress(of: id, db)?.isFinished == false else { return }
            if badgeIncrement != nil, !recipients.isEmpty {
                try self.database.schema.check(ParseObject(className: "_Installation", fields: ["badge": 1]), db)
            }
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO work_queue (id, kind, payload, due) VALUES (?, ?, ?, ?)")
            var added = 0
            for recipient in recipients {
                guard let token = recipient.token else { continue }
                var payload: [String: ParseValue] = [
                    "job": .string(id), "installation": .string(recipient.installationId), "deviceType": .string(recipient.deviceType),
                    "token": .string(token), "key": .string(RandomUUID.string()),
                ]
                if let pushType = recipient.pushType { payload["pushType"] = .string(pushType) }
                let workId = PushDelivery.workId(job: id, installation: recipient.installationId)
                try insert.execute(arguments: [workId, kind, JSONWriter.string(.object(payload)), now.timeIntervalSince1970])
                guard db.changesCount > 0 else { continue }
                added += 1
                if let badgeIncrement { try self.incrementBadge(of: recipient.installationId, by: badgeIncrement, delivery: workId, db) }
            }
            try db.cachedStatement(sql: "UPDATE push_jobs SET cursor = ?, expanded = ?, count = count + ? WHERE job_id = ?")
                .execute(arguments: [cursor, isLast, added, id])
            try self.updatePushCounts(of: id, now: now, db)
        }
        database.workQueued.signal()
    }

    /// Raises the `badge` of installation `id` by `amount` (from 0 when it has no number) and gives the
    /// result to delivery `sequence`. The installation's `updatedAt` stays as it is: a badge is not
    /// a new registration (see ``PushDeliveryResolution/invalidToken(reason:unregisteredAt:)``).
    private func incrementBadge(of id: String, by amount: Int, delivery workId: String, _ db: Database) throws {
        let badge = try database.publishingUpdates(of: "_Installation", ids: [id], db) {
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        UPDATE objects SET data = json_set(data, '$.badge',
                            CASE WHEN json_type(data, '$.badge') IN ('integer', 'real') THEN CAST(json_extract(data, '$.badge') AS INTEGER) + ?1 ELSE ?1 END)
                        WHERE class = '_Installation' AND id = ?2 RETURNING CAST(json_extract(data, '$.badge') AS INTEGER)
                        """),
                arguments: [amount, id])
        }
        try db.cachedStatement(sql: "UPDATE work_queue SET payload = json_set(payload, '$.badge', ?) WHERE id = ?")
            .execute(arguments: [badge, workId])
    }

    public func finishPushJob(_ id: String, _ ending: PushJobEnding, now: Date) async throws {
        try await database.write { db in try self.finishPushJob(id, ending, now: now, db) }
    }
}
