import Cloudlet
import CloudletRuntime
import GRDB
import Synchronization

/// Outbox events whose hooks have run, waiting for their rows to be deleted. The deletion rides
/// along with the next write transaction to start (under load, another save's, already queued), or
/// with a flush queued for it when none is. Nobody waits for it: a completed event is no longer
/// pending in this process at once, and once its deletion has committed (milliseconds later) not
/// for the next process either; a crash in between runs its hook again, as at-least-once allows.
final class CompletedOutboxEvents: Sendable {
    private struct State {
        /// Completed, their deletion not started.
        var ids: Set<String> = []
        /// Completed, their deletion in a transaction not yet committed.
        var deleting: Set<String> = []
        /// Whether a flush is queued in the writer and has not started yet.
        var isFlushQueued = false
    }

    private let state = Mutex(State())

    /// Marks `id` done; its row's deletion is queued through `pool`.
    func complete(_ id: String, in pool: DatabasePool) {
        let queuesFlush = state.withLock { state in
            state.ids.insert(id)
            defer { state.isFlushQueued = true }
            return !state.isFlushQueued
        }
        if queuesFlush { queueFlush(pool) }
    }

    /// Whether `id` is done (its row may still be there, its deletion queued).
    func contains(_ id: String) -> Bool {
        state.withLock { $0.ids.contains(id) || $0.deleting.contains(id) }
    }

    /// The events done whose rows may still be there. Taken before a read of the outbox, it covers
    /// every row that read can see: a deletion that commits after it was taken leaves its id here
    /// until then, and a read that starts later no longer sees the row.
    var all: Set<String> {
        state.withLock { $0.ids.union($0.deleting) }
    }

    /// Deletes the completed events' rows inside the transaction of `db`; if it rolls back, they
    /// wait for a flush (or, when the flush's own transaction rolled back, for the next write: a
    /// database that refuses every write must not be retried in a loop).
    func delete(in db: Database, pool: DatabasePool, flushingOnRollback: Bool = true) throws {
        let ids = state.withLock { state in
            defer { state.deleting.formUnion(state.ids); state.ids = [] }
            return state.ids
        }
        guard !ids.isEmpty else { return }
        db.afterNextTransaction(
            onCommit: { _ in self.state.withLock { $0.deleting.subtract(ids) } },
            onRollback: { _ in
                let queuesFlush = self.state.withLock { state in
                    state.deleting.subtract(ids)
                    state.ids.formUnion(ids)
                    guard flushingOnRollback, !state.isFlushQueued else { return false }
                    state.isFlushQueued = true
                    return true
                }
                if queuesFlush { self.queueFlush(pool) }
            })
        let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?")
        for id in ids { try statement.execute(arguments: [id]) }
    }

    /// Queues a flush on the writer's queue (straight there: no task to start first). It deletes
    /// in a transaction whatever has piled up when it starts, if anything has: under load, the saves'
    /// own transactions have usually taken every deletion along by then. If it fails, the rows wait
    /// for the next write.
    private func queueFlush(_ pool: DatabasePool) {
        pool.asyncWriteWithoutTransaction { db in
            let pending = self.state.withLock { state in
                state.isFlushQueued = false
                return !state.ids.isEmpty
            }
            guard pending else { return }
            try? db.inTransaction {
                try self.delete(in: db, pool: pool, flushingOnRollback: false)
                return .commit
            }
        }
    }
}

extension SQLiteObjectStorage {
    public func pendingOutboxEvents() async throws -> [OutboxEvent] {
        // Taken before the read: a deletion committing during it must not show its row as pending.
        let completed = completedEvents.all
        return try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT event FROM outbox ORDER BY seq").compactMap {
                OutboxEventCoding.decode(try JSONParser.parse($0))
            }
        }.filter { !completed.contains($0.id) }
    }

    public func isOutboxEventPending(_ id: String) async throws -> Bool {
        guard !completedEvents.contains(id) else { return false }
        return try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE id = ?", arguments: [id]) ?? false
        }
    }

    public func completeOutboxEvent(_ id: String) {
        completedEvents.complete(id, in: pool)
    }

    /// A write transaction that also deletes the outbox rows of completed events. If the caller has
    /// a ``WriteDeadline`` and it passes while the transaction runs, the transaction rolls back
    /// instead of committing (the caller has had its 504 by then).
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        let deadline = WriteDeadline.current
        try deadline?.check()
        return try await pool.write { db in
            try self.completedEvents.delete(in: db, pool: self.pool)
            let value = try body(db)
            try deadline?.check()
            return value
        }
    }

    static func insertOutbox(_ event: OutboxEvent, _ db: Database) throws {
        try insertOutbox(outboxArguments(event), db)
    }

    /// The row of `event`, encoded before the write transaction starts where possible.
    static func outboxArguments(_ event: OutboxEvent) -> StatementArguments {
        [event.id, OutboxEventCoding.text(event)]
    }

    static func insertOutbox(_ arguments: StatementArguments, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO outbox (id, event) VALUES (?, ?)").execute(arguments: arguments)
    }
}

/// The JSON form an ``OutboxEvent`` is stored in.
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
