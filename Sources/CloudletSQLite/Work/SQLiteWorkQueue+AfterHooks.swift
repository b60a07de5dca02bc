import Cloudlet
import Foundation
import CloudletRuntime
import GRDB

/// After hooks as rows of the work queue (kind ``WorkKind/afterHook``), queued in the transaction
/// of the write they follow, their payload the event (``OutboxEventCoding``).
extension SQLiteWorkQueue {
    /// Moves the after hooks a database made before the work queue still owes (rows of its `outbox`
    /// table) into the queue, due at once, and drops that table.
    static func registerAfterHookMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("after_hooks_in_work_queue") { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO work_queue (id, kind, payload, due) SELECT id, ?, event, 0 FROM outbox ORDER BY seq;
                    DROP TABLE outbox;
                    """,
                arguments: [WorkKind.afterHook.rawValue])
        }
    }

    /// The work queue's row for `event`, encoded before the write transaction starts.
    static func afterHookRow(_ event: OutboxEvent) -> StatementArguments {
        workRow(
            id: event.id, kind: .afterHook, payload: OutboxEventCoding.text(event), due: event.hold?.leasedUntil ?? .distantPast,
            heldBy: event.hold?.owner)
    }

    /// Queues `event`'s after hook in the transaction of `db`; once it commits, a row no one holds
    /// wakes the loop that claims it.
    func queueAfterHook(_ event: OutboxEvent, _ db: Database) throws {
        try queueAfterHook(Self.afterHookRow(event), isHeld: event.hold != nil, db)
    }

    /// Queues the after hook whose row is `row` (held when `isHeld`) in the transaction of `db`.
    func queueAfterHook(_ row: StatementArguments, isHeld: Bool, _ db: Database) throws {
        try Self.insertWork(row, db)
        if !isHeld { db.afterCommit { [workQueued] in workQueued.signal() } }
    }
}
