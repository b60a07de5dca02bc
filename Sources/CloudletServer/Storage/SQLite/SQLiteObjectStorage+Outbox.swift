import Cloudlet
import GRDB

extension SQLiteObjectStorage {
    public func pendingOutboxEvents() async throws -> [OutboxEvent] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT event FROM outbox ORDER BY seq").compactMap {
                OutboxEventCoding.decode(try JSONParser.parse($0))
            }
        }
    }

    public func completeOutboxEvent(_ id: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        }
    }

    static func insertOutbox(_ event: OutboxEvent, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO outbox (id, event) VALUES (?, ?)",
            arguments: [event.id, JSONWriter.string(OutboxEventCoding.encode(event))])
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
