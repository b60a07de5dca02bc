import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

/// Saves and deletes: each one transaction with the after hook it owes (a row of the work queue),
/// the field types it records, the objects stored alongside it and the notification of its change
/// to every node's LiveQuery feed; as the SQLite store's.
extension PostgresObjectStore {
    /// Stores a new object, which has its id and timestamps already, adds the objects `relations`
    /// names to its relation fields, queues the after hook `outbox` with it, and stores the objects
    /// `alongside` in the same transaction.
    public func insert(
        _ object: ParseObject, relations: [String: RelationChange] = [:], outbox: OutboxEvent? = nil, alongside: [ParseObject] = []
    ) async throws {
        let row = try encoded(object, in: outbox)
        let companions = try alongside.map { companion in (companion, try checkedText(companion)) }
        try await writer.write { connection, afterCommit in
            try await insertRow(object, row, on: connection, afterCommit: &afterCommit)
            try await PostgresRelations.apply(relations, owner: object.className, id: object.objectId!, in: schema, on: connection, logger: database.logger)
            for (companion, text) in companions { try await insertRow(companion, text, on: connection, afterCommit: &afterCommit) }
            if let outbox { try await queueAfterHook(outbox, on: connection) }
            try await notifySessionChanges(afterWriting: object.className, on: connection)
        }
    }

    /// Applies `changes` to the stored object, locked for the transaction, and returns it as written
    /// with the event `outbox` built for it; `check` sees the stored object first and may refuse by
    /// throwing. Throws ``ParseError/objectNotFound(_:)`` if there is no such object.
    public func update(
        _ className: String, id: String, changes: ObjectChanges, updatedAt: Date,
        check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?, alongside: [ParseObject] = []
    ) async throws -> (object: ParseObject, event: OutboxEvent?) {
        let companions = try alongside.map { companion in (companion, try checkedText(companion)) }
        return try await writer.write { connection, afterCommit in
            guard let current = try await lockedObject(className, id, on: connection) else { throw ParseError.objectNotFound() }
            try check(current)
            // Stored and handed to the after hook with its `File` URLs rebuilt, as every read answers it.
            var object = FileURLs.presenting(try changes.applied(to: current), with: fileURLs)
            object.updatedAt = updatedAt
            if let commit = try await fieldTypes.check(object, on: connection, logger: database.logger) { afterCommit.append(commit) }
            // The after hook's event encodes the object once, for the object's row and the queued one alike.
            let event = outbox?(object)
            let row = event?.objectText ?? ObjectText(object)
            try checkSize(row)
            var binds = PostgresBindings()
            binds.append(row.updatedAt)
            binds.append(row.acl)
            binds.append(row.fields)
            binds.append(className)
            binds.append(id)
            try await connection.query(
                PostgresQuery(unsafeSQL: "UPDATE \(table) SET updated_at = $1, acl = $2::jsonb, data = $3::jsonb WHERE class = $4 AND id = $5", binds: binds),
                logger: database.logger)
            try await notifyLive(.update, object, original: current, on: connection)
            try await PostgresRelations.apply(changes.relations, owner: className, id: id, in: schema, on: connection, logger: database.logger)
            let newPassword = className == SystemClass.user.name ? changes.password : nil
            if let newPassword {
                try await PostgresAccountStore.setPassword(newPassword, ofUser: id, in: schema, on: connection, logger: database.logger)
            }
            try await notifySessionChanges(afterWriting: className, endingSessionsOf: newPassword == nil ? nil : id, on: connection)
            for (companion, text) in companions { try await insertRow(companion, text, on: connection, afterCommit: &afterCommit) }
            if let event { try await queueAfterHook(event, on: connection) }
            return (object, event)
        }
    }

    /// Deletes the object `id` of `className` and returns the event `outbox` built for it; `check`
    /// as for ``update(_:id:changes:updatedAt:check:outbox:alongside:)``. Throws
    /// ``ParseError/objectNotFound(_:)`` if there is no such object.
    @discardableResult
    public func delete(
        _ className: String, id: String, check: @escaping @Sendable (ParseObject) throws -> Void, outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws -> OutboxEvent? {
        return try await writer.write { connection, _ in
            guard let current = try await lockedObject(className, id, on: connection) else { throw ParseError.objectNotFound() }
            try check(current)
            var binds = PostgresBindings()
            binds.append(className)
            binds.append(id)
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE class = $1 AND id = $2", binds: binds), logger: database.logger)
            try await notifyLive(.delete, current, on: connection)
            try await PostgresRelations.removeAll(of: className, id: id, in: schema, on: connection, logger: database.logger)
            if className == SystemClass.user.name {
                try await PostgresAccountStore.deleteAccount(ofUser: id, in: schema, on: connection, logger: database.logger)
            }
            try await notifySessionChanges(afterWriting: className, endingSessionsOf: id, on: connection)
            let event = outbox?(FileURLs.presenting(current, with: fileURLs))
            if let event { try await queueAfterHook(event, on: connection) }
            return event
        }
    }

    /// Tells every node, at the commit, what a write of `className` ends in its session cache, as
    /// the runtime tells this node's (``PostgresStoreChanges``): any write of `_Role` changes
    /// roles, so every session goes; a user deleted or given a new password (`endingSessionsOf`)
    /// loses its sessions.
    func notifySessionChanges(afterWriting className: String, endingSessionsOf userId: String? = nil, on connection: PostgresConnection) async throws {
        if className == SystemClass.role.name {
            try await PostgresStoreChanges.notify(.sessions(.everyone), in: schema, on: connection, logger: database.logger)
        } else if className == SystemClass.user.name, let userId {
            try await PostgresStoreChanges.notify(.sessions(.user(id: userId)), in: schema, on: connection, logger: database.logger)
        }
    }

    /// The object `id` of `className` as stored, its row locked until the transaction ends.
    func lockedObject(_ className: String, _ id: String, on connection: PostgresConnection) async throws -> ParseObject? {
        var binds = PostgresBindings()
        binds.append(className)
        binds.append(id)
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT id, created_at, updated_at, acl::text, data::text FROM \(table) WHERE class = $1 AND id = $2 FOR UPDATE", binds: binds),
            logger: database.logger)
        for try await row in rows.decode((String, String, String, String?, String).self) { return try Self.object(className, row) }
        return nil
    }

    /// Inserts `object`, whose row is `row`, once its fields' types are checked, and tells every
    /// node's LiveQuery feed of it.
    func insertRow(_ object: ParseObject, _ row: ObjectText, on connection: PostgresConnection, afterCommit: inout [@Sendable () -> Void]) async throws {
        if let commit = try await fieldTypes.check(object, on: connection, logger: database.logger) { afterCommit.append(commit) }
        var binds = PostgresBindings()
        binds.append(object.className)
        binds.append(object.objectId)
        binds.append(row.createdAt)
        binds.append(row.updatedAt)
        binds.append(row.acl)
        binds.append(row.fields)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: "INSERT INTO \(table) (class, id, created_at, updated_at, acl, data) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)",
                binds: binds),
            logger: database.logger)
        try await notifyLive(.create, object, on: connection)
    }

    /// Queues `event`'s after hook in the transaction of `connection`.
    func queueAfterHook(_ event: OutboxEvent, on connection: PostgresConnection) async throws {
        try await PostgresWorkQueue.queue(
            [PostgresWorkRow(afterHook: event)], in: PostgresWorkQueue.table(schema), topic: PostgresWorkQueue.topic(schema), on: connection,
            logger: database.logger)
    }

    /// `object` encoded — in `outbox` already if it is the after hook event of its insert —
    /// and checked for size.
    func encoded(_ object: ParseObject, in outbox: OutboxEvent?) throws -> ObjectText {
        let text = outbox.flatMap { $0.object.objectId == object.objectId ? $0.objectText : nil } ?? ObjectText(object)
        try checkSize(text)
        return text
    }

    /// `object` encoded, checked for size.
    func checkedText(_ object: ParseObject) throws -> ObjectText {
        try encoded(object, in: nil)
    }

    /// Throws 116 (413) when a row's fields and ACL are larger than the store's bound.
    func checkSize(_ row: ObjectText) throws {
        guard row.fields.utf8.count + (row.acl?.utf8.count ?? 0) <= maximumObjectBytes else {
            throw ParseError(code: 116, message: "the object would be larger than \(maximumObjectBytes) bytes")
        }
    }
}
