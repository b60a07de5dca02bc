import Cloudlet
import Foundation
import GRDB

/// After hooks as rows of the work queue (kind ``WorkKind/afterHook``), queued in the transaction
/// of the write they follow, their payload the event (``OutboxEventCoding``).
extension SQLiteObjectStorage {
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
        if !isHeld { db.afterNextTransaction { _ in self.workQueued.signal() } }
    }
}

/// The JSON form an ``OutboxEvent`` is queued in (its row's payload).
enum OutboxEventCoding {
    /// The event's JSON: its own members, and the object and original as the event already holds them encoded.
    static func text(_ event: OutboxEvent) -> String {
        var caller: [String: ParseValue] = [
            "master": .bool(event.caller.isMaster), "requestId": .string(event.caller.requestId),
            "roles": .array(event.caller.roles.map(ParseValue.string)),
        ]
        caller["userId"] = event.caller.userId.map(ParseValue.string)
        caller["installationId"] = event.caller.installationId.map(ParseValue.string)
        let members: [String: ParseValue] = [
            "id": .string(event.id), "kind": .string(event.kind.rawValue), "className": .string(event.object.className),
            "caller": .object(caller),
        ]
        return ObjectText.adding(
            ["object": event.objectText.rest, "original": event.originalJSON], to: JSONWriter.string(.object(members)))
    }

    static func decode(_ value: ParseValue) -> OutboxEvent? {
        guard let id = value["id"]?.stringValue, let kind = value["kind"]?.stringValue.flatMap(HookKind.init(rawValue:)),
            let className = value["className"]?.stringValue, let object = value["object"]?.objectValue,
            let caller = value["caller"], let requestId = caller["requestId"]?.stringValue
        else { return nil }
        return OutboxEvent(
            id: id, kind: kind, object: ParseObject(className: className, json: object),
            original: value["original"]?.objectValue.map { ParseObject(className: className, json: $0) },
            caller: Caller(
                userId: caller["userId"]?.stringValue, roles: caller["roles"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                isMaster: caller["master"]?.boolValue ?? false,
                installationId: caller["installationId"]?.stringValue, requestId: requestId))
    }
}
