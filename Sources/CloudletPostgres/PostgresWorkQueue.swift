import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// An app's work queue in PostgreSQL, as its schema's `work_queue` table, shared by every node
/// serving the app: one row per piece of work, `due` being when it may next be claimed (for a
/// leased row, when its lease runs out).
///
/// A claim locks the due rows it takes with `FOR UPDATE SKIP LOCKED`, so claims made at once by
/// several nodes take different rows and never wait for one another; a node that dies leaves its
/// leases to run out, and the next claim after that takes its rows over. A commit that queues work
/// notifies every node (``PostgresNotifications``), which wakes their loops at once.
public struct PostgresWorkQueue: WorkQueue {
    private let database: PostgresDatabase
    private let table: String
    /// The topic of the notification a commit that queued work sends to every node.
    private let topic: String
    /// Where queued work's transactions are opened (a shared transaction's, in one of its members).
    private let writer: PostgresWriter
    /// Signalled when this node or another queued work in this app.
    public let workQueued: WakeSignal

    /// The work queue of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        table = Self.table(schema)
        topic = Self.topic(schema)
        writer = PostgresWriter(database: database, schema: schema)
        workQueued = await database.wakeSignal(for: topic)
    }

    public func enqueue(_ work: [NewWork]) async throws {
        guard !work.isEmpty else { return }
        let rows = work.map { PostgresWorkRow(id: $0.id, kind: $0.kind, payload: JSONWriter.string($0.payload), due: $0.due, heldBy: $0.heldBy) }
        try await writer.write { [table, topic, database] connection, _ in
            try await Self.queue(rows, in: table, topic: topic, on: connection, logger: database.logger)
        }
    }

    /// Queues `rows` in `table` in the transaction of `connection`, rows whose id is queued already
    /// left alone; at the commit, every node listening on `topic` (this one too) is woken, unless
    /// every row is held by its queuer.
    static func queue(_ rows: [PostgresWorkRow], in table: String, topic: String, on connection: PostgresConnection, logger: Logger) async throws {
        let sql = "INSERT INTO \(table) (id, kind, payload, due, attempts, lease_owner) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING"
        for row in rows {
            var binds = PostgresBindings()
            binds.append(row.id)
            binds.append(row.kind.rawValue)
            binds.append(row.payload)
            binds.append(row.due)
            // A row queued held counts its holder's run as its first attempt.
            binds.append(row.heldBy == nil ? 0 : 1)
            binds.append(row.heldBy)
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        }
        guard rows.contains(where: { $0.heldBy == nil }) else { return }
        try await PostgresNotifications.notify(topic, on: connection, logger: logger)
    }

    public func claim(_ kinds: Set<WorkKind>, limit: Int, owner: String, at now: Date, leasedUntil: Date) async throws -> [ClaimedWork] {
        guard limit > 0, !kinds.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(owner)
        binds.append(leasedUntil)
        binds.append(kinds.map(\.rawValue))
        binds.append(now)
        binds.append(limit)
        // The rows due, oldest due first, each locked unless another claim holds it; then leased.
        let sql = """
            WITH taken AS (
                SELECT seq, due FROM \(table) WHERE kind = ANY($3) AND due <= $4 ORDER BY due, seq LIMIT $5 FOR UPDATE SKIP LOCKED
            )
            UPDATE \(table) AS work SET lease_owner = $1, due = $2, attempts = work.attempts + 1 FROM taken WHERE work.seq = taken.seq
            RETURNING work.id, work.kind, work.payload, work.attempts, taken.due, work.seq
            """
        var claimed: [(due: Date, seq: Int64, work: ClaimedWork)] = []
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger)
        for try await (id, kind, payload, attempts, due, seq) in rows.decode((String, String, String, Int, Date, Int64).self) {
            let work = ClaimedWork(
                id: id, kind: WorkKind(rawValue: kind), payload: try JSONParser.parse(payload), attempts: attempts, owner: owner,
                leasedUntil: leasedUntil)
            claimed.append((due, seq, work))
        }
        return claimed.sorted { ($0.due, $0.seq) < ($1.due, $1.seq) }.map(\.work)
    }

    @discardableResult
    public func renew(_ ids: [String], owner: String, leasedUntil: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var binds = PostgresBindings()
        binds.append(leasedUntil)
        binds.append(ids)
        binds.append(owner)
        return try await database.execute("UPDATE \(table) SET due = $1 WHERE id = ANY($2) AND lease_owner = $3 RETURNING 1", binds)
    }

    @discardableResult
    public func end(_ endings: [WorkEnding], at now: Date) async throws -> Int {
        guard !endings.isEmpty else { return 0 }
        // One statement per outcome, each over the rows it ends, in one transaction.
        var done: (ids: [String], owners: [String]) = ([], [])
        var retried: (ids: [String], owners: [String], due: [Date]) = ([], [], [])
        var released: (ids: [String], owners: [String]) = ([], [])
        for ending in endings {
            switch ending.outcome {
            case .done:
                done.ids.append(ending.id)
                done.owners.append(ending.owner)
            case .retry(let due):
                retried.ids.append(ending.id)
                retried.owners.append(ending.owner)
                retried.due.append(due)
            case .released:
                released.ids.append(ending.id)
                released.owners.append(ending.owner)
            }
        }
        return try await database.transaction { connection in
            var changed = 0
            if !done.ids.isEmpty {
                var binds = PostgresBindings()
                binds.append(done.ids)
                binds.append(done.owners)
                changed += try await count(
                    connection,
                    "DELETE FROM \(table) AS work USING unnest($1::text[], $2::text[]) AS ended (id, owner) WHERE work.id = ended.id AND work.lease_owner = ended.owner RETURNING 1",
                    binds)
            }
            if !retried.ids.isEmpty {
                var binds = PostgresBindings()
                binds.append(retried.ids)
                binds.append(retried.owners)
                binds.append(retried.due)
                changed += try await count(
                    connection,
                    """
                    UPDATE \(table) AS work SET lease_owner = NULL, due = ended.due
                    FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS ended (id, owner, due)
                    WHERE work.id = ended.id AND work.lease_owner = ended.owner RETURNING 1
                    """, binds)
            }
            if !released.ids.isEmpty {
                var binds = PostgresBindings()
                binds.append(released.ids)
                binds.append(released.owners)
                binds.append(now)
                changed += try await count(
                    connection,
                    """
                    UPDATE \(table) AS work SET lease_owner = NULL, due = $3, attempts = work.attempts - 1
                    FROM unnest($1::text[], $2::text[]) AS ended (id, owner) WHERE work.id = ended.id AND work.lease_owner = ended.owner RETURNING 1
                    """, binds)
            }
            return changed
        }
    }

    @discardableResult
    public func takeBack(leasedByOthersThan owner: String, at now: Date) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(now)
        binds.append(owner)
        return try await database.execute(
            "UPDATE \(table) SET lease_owner = NULL, due = $1 WHERE lease_owner IS NOT NULL AND lease_owner <> $2 RETURNING 1", binds)
    }

    /// Every node serving the app claims from it.
    public var isShared: Bool { true }

    public func nextDue(_ kinds: Set<WorkKind>) async throws -> Date? {
        guard !kinds.isEmpty else { return nil }
        var binds = PostgresBindings()
        binds.append(kinds.map(\.rawValue))
        let rows = try await database.client.query(
            PostgresQuery(unsafeSQL: "SELECT min(due) FROM \(table) WHERE kind = ANY($1)", binds: binds), logger: database.logger)
        for try await due in rows.decode(Date?.self) { return due }
        return nil
    }

    /// The queue's table in `schema`.
    static func table(_ schema: PostgresAppSchema) -> String { schema.quoted + ".work_queue" }

    /// The topic of the notification that work was queued in `schema`.
    static func topic(_ schema: PostgresAppSchema) -> String { "work " + schema.name }

    /// Nil: PostgreSQL keeps no time of the table's last write that is cheap to read.
    public func lastWrittenAt() -> Date? { nil }

    /// Runs `sql` on `connection` and answers how many rows it gave.
    private func count(_ connection: PostgresConnection, _ sql: String, _ binds: PostgresBindings) async throws -> Int {
        var rows = 0
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger) { rows += 1 }
        return rows
    }
}

/// A row of the work queue, its payload encoded already.
struct PostgresWorkRow: Sendable {
    let id: String
    let kind: WorkKind
    let payload: String
    let due: Date
    let heldBy: String?

    /// The row of `event`'s after hook: held by its queuer until its lease runs out if it has a
    /// hold, due at once otherwise.
    init(afterHook event: OutboxEvent) {
        self.init(
            id: event.id, kind: .afterHook, payload: OutboxEventCoding.text(event), due: event.hold?.leasedUntil ?? .distantPast,
            heldBy: event.hold?.owner)
    }

    init(id: String, kind: WorkKind, payload: String, due: Date, heldBy: String?) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.due = due
        self.heldBy = heldBy
    }
}
