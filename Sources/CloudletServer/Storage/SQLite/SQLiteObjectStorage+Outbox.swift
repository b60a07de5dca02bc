import Cloudlet
import GRDB
import Synchronization

/// Outbox events whose hooks have run, waiting to be deleted. Deleting them rides along with the
/// next write transaction (or a flush once enough pile up, or at shutdown) instead of costing a
/// commit each. A crash before the deletion commits only means a hook runs again, which
/// at-least-once delivery allows.
final class CompletedOutboxEvents: Sendable {
    static let flushThreshold = 64
    private let ids = Mutex<[String]>([])

    var pending: Set<String> { Set(ids.withLock { $0 }) }

    /// Adds an id; returns whether enough have piled up to flush now.
    func add(_ id: String) -> Bool {
        ids.withLock { ids in
            ids.append(id)
            return ids.count >= Self.flushThreshold
        }
    }

    /// Deletes the completed events' rows inside the transaction of `db`; if that transaction rolls
    /// back, the ids are kept for the next one.
    func delete(in db: Database) throws {
        let taken = ids.withLock { ids in
            defer { ids.removeAll() }
            return ids
        }
        guard !taken.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?")
        for id in taken { try statement.execute(arguments: [id]) }
        db.afterNextTransaction(onCommit: { _ in }, onRollback: { _ in self.ids.withLock { $0.append(contentsOf: taken) } })
    }
}

extension SQLiteObjectStorage {
    public func pendingOutboxEvents() async throws -> [OutboxEvent] {
        let completed = completedEvents.pending
        return try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT event FROM outbox ORDER BY seq").compactMap {
                OutboxEventCoding.decode(try JSONParser.parse($0))
            }
        }.filter { !completed.contains($0.id) }
    }

    public func completeOutboxEvent(_ id: String) async throws {
        if completedEvents.add(id) { try await flushCompletedOutboxEvents() }
    }

    public func flushCompletedOutboxEvents() async throws {
        try await write { _ in }
    }

    /// A write transaction that also deletes the outbox rows of completed events.
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await pool.write { db in
            try self.completedEvents.delete(in: db)
            return try body(db)
        }
    }

    static func insertOutbox(_ event: OutboxEvent, _ db: Database) throws {
        try insertOutbox(outboxArguments(event), db)
    }

    /// The row of `event`, encoded before the write transaction starts where possible.
    static func outboxArguments(_ event: OutboxEvent) -> StatementArguments {
        [event.id, JSONWriter.string(OutboxEventCoding.encode(event))]
    }

    static func insertOutbox(_ arguments: StatementArguments, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO outbox (id, event) VALUES (?, ?)").execute(arguments: arguments)
    }
}

/// The JSON form an ``OutboxEvent`` is stored in.
enum OutboxEventCoding {
    static func encode(_ event: OutboxEvent) -> ParseValue {
        var caller: [String: ParseValue] = [
            "master": .bool(event.caller.isMaster), "requestId": .string(event.caller.requestId),
        ]
        caller["userId"] = event.caller.userId.map(ParseValue.string)
        caller["installationId"] = event.caller.installationId.map(ParseValue.string)
        var members: [String: ParseValue] = [
            "id": .string(event.id), "kind": .string(event.kind.rawValue), "className": .string(event.object.className),
            "object": .object(event.object.json), "caller": .object(caller),
        ]
        members["original"] = event.original.map { .object($0.json) }
        return .object(members)
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
                userId: caller["userId"]?.stringValue, isMaster: caller["master"]?.boolValue ?? false,
                installationId: caller["installationId"]?.stringValue, requestId: requestId))
    }
}
