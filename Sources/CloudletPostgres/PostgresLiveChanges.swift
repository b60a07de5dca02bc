import Cloudlet
import CloudletRuntime
import PostgresNIO

/// How the PostgreSQL stores tell every node's LiveQuery feed of an app (``AppStores/liveChanges``)
/// of the committed writes of the classes it publishes: a notification sent in the write's
/// transaction, on the topic `live <schema>`, so heard at its commit by every node listening
/// (the one that wrote too), in the order the transactions committed, and never if it rolls back.
/// Each node publishes what it hears, and only that: the node that wrote publishes its own write
/// once, when it hears it.
///
/// The notification's detail is the change as JSON (``text(of:)``); a change that would not fit
/// a notification (PostgreSQL's payloads stop short of 8000 bytes: an object of a few kilobytes
/// with its original) is written to the schema's `live_changes` table in the same transaction,
/// and the detail is `#` and its row's id, which each node reads. Rows are kept ``retention``, then
/// pruned by the writes of later large changes; a node that reads a row gone, or a change it
/// cannot read, tells its feed's subscribers of a gap, as it does whenever it stops listening.
enum PostgresLiveChanges {
    /// The topic of the LiveQuery changes of the app of `schema`.
    static func topic(_ schema: PostgresAppSchema) -> String { "live " + schema.name }

    /// How long a large change's row is kept for the nodes to read.
    static let retention: Duration = .seconds(30)
    /// The most rows past ``retention`` one write of a large change prunes.
    static let prunedPerWrite = 100

    /// The table of the changes too large for a notification.
    static let migration = PostgresMigrations.Migration(
        name: "live_changes",
        statements: [
            "CREATE TABLE {schema}.live_changes (id bigserial PRIMARY KEY, written_at timestamptz NOT NULL DEFAULT now(), change text NOT NULL)",
            "CREATE INDEX live_changes_by_age ON {schema}.live_changes (written_at)",
        ])

    /// Tells every node of `change` in the app of `schema` at the commit of the transaction of
    /// `connection`: in the notification, or through a row of `live_changes` if it does not fit.
    static func notify(_ change: CommittedObjectChange, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        let topic = topic(schema)
        let text = text(of: change)
        if PostgresNotifications.payload(topic, detail: text).utf8.count <= PostgresNotifications.maximumPayloadBytes {
            return try await PostgresNotifications.notify(topic, detail: text, on: connection, logger: logger)
        }
        let table = schema.quoted + ".live_changes"
        var binds = PostgresBindings(text)
        binds.append("\(retention.components.seconds) seconds")
        binds.append(prunedPerWrite)
        let rows = try await connection.run(
            """
            WITH pruned AS (
                DELETE FROM \(table) WHERE id IN (
                    SELECT id FROM \(table) WHERE written_at < now() - $2::interval ORDER BY written_at LIMIT $3 FOR UPDATE SKIP LOCKED
                )
            )
            INSERT INTO \(table) (change) VALUES ($1) RETURNING id
            """, binds, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        for id in ids { try await PostgresNotifications.notify(topic, detail: "#\(id)", on: connection, logger: logger) }
    }

    /// `change` as JSON: `{"kind", "className", "object", "original"}`, each object as its row
    /// holds it (`objectId`, `createdAt`, `updatedAt`, `ACL` and its `fields` apart, so that no
    /// field's name is taken).
    static func text(of change: CommittedObjectChange) -> String {
        var members: [String: ParseValue] = [
            "kind": .string(change.kind.rawValue), "className": .string(change.object.className), "object": json(change.object),
        ]
        members["original"] = change.original.map(json)
        return JSONWriter.string(.object(members))
    }

    /// The change `text` holds (``text(of:)``), or nil if it holds none.
    static func change(from text: String) -> CommittedObjectChange? {
        guard let members = try? JSONParser.parse(text, maximumDepth: JSONParser.defaultMaximumDepth + 3).objectValue,
            let kind = members["kind"]?.stringValue.flatMap(CommittedObjectChange.Kind.init(rawValue:)),
            let className = members["className"]?.stringValue, let object = members["object"].flatMap({ self.object(className, $0) })
        else { return nil }
        return CommittedObjectChange(kind: kind, object: object, original: members["original"].flatMap { self.object(className, $0) })
    }

    private static func json(_ object: ParseObject) -> ParseValue {
        var members: [String: ParseValue] = ["fields": .object(object.fields)]
        members["objectId"] = object.objectId.map(ParseValue.string)
        members["createdAt"] = object.createdAt.map { .string(ParseDate.string(from: $0)) }
        members["updatedAt"] = object.updatedAt.map { .string(ParseDate.string(from: $0)) }
        members["ACL"] = object.acl?.json
        return .object(members)
    }

    private static func object(_ className: String, _ json: ParseValue) -> ParseObject? {
        guard let fields = json["fields"]?.objectValue else { return nil }
        return ParseObject(
            className: className, objectId: json["objectId"]?.stringValue, createdAt: json["createdAt"]?.stringValue.flatMap(ParseDate.date(from:)),
            updatedAt: json["updatedAt"]?.stringValue.flatMap(ParseDate.date(from:)), acl: json["ACL"].flatMap(ParseACL.init(json:)),
            fields: fields)
    }

    /// The change in row `id` of the app's `live_changes`, or nil if it is gone.
    static func read(_ id: Int64, in schema: PostgresAppSchema, from client: PostgresClient, logger: Logger) async throws -> CommittedObjectChange? {
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT change FROM \(schema.quoted).live_changes WHERE id = $1", binds: PostgresBindings(id)), logger: logger)
        for try await text in rows.decode(String.self) { return change(from: text) }
        return nil
    }
}
