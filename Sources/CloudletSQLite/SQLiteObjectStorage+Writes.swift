import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

extension SQLiteObjectStorage {
    public func insert(_ object: ParseObject, outbox: OutboxEvent?, alongside: [ParseObject]) async throws {
        let arguments = try insertArguments(object, encodedIn: outbox)
        let afterHookRow = outbox.map(Self.afterHookRow)
        let companions = try companionRows(alongside)
        try await write { db in
            try Self.checkUniqueness(of: object, db)
            try self.schema.check(object, db)
            try Self.insertObject(arguments, db)
            self.noteInserted(object, db)
            if let afterHookRow { try self.queueAfterHook(afterHookRow, isHeld: outbox?.hold != nil, db) }
            try self.insertCompanions(companions, db)
        }
    }

    /// A write transaction. If the caller has a ``WriteDeadline`` and it passes while the transaction
    /// runs, the transaction rolls back instead of committing (the caller has had its 504 by then).
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        let deadline = WriteDeadline.current
        try deadline?.check()
        return try await pool.write { db in
            let value = try body(db)
            try deadline?.check()
            return value
        }
    }

    /// The rows of the new objects stored alongside a write, checked for size before it starts.
    func companionRows(_ objects: [ParseObject]) throws -> [(ParseObject, StatementArguments)] {
        try objects.map { ($0, try insertArguments($0)) }
    }

    /// Inserts the objects stored alongside a write, in its transaction.
    func insertCompanions(_ rows: [(ParseObject, StatementArguments)], _ db: Database) throws {
        for (object, arguments) in rows {
            try schema.check(object, db)
            try Self.insertObject(arguments, db)
            noteInserted(object, db)
        }
    }

    static func insertObject(_ arguments: StatementArguments, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: arguments)
    }

    public func update(
        _ className: String, id: String, changes: ObjectChanges, updatedAt: Date,
        check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?, alongside: [ParseObject]
    ) async throws -> (object: ParseObject, event: OutboxEvent?) {
        let companions = try companionRows(alongside)
        return try await write { db in
            guard let current = try Self.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            // Stored and handed to the after hook with its `File` URLs rebuilt, as every read answers it.
            var object = self.presented(try changes.applied(to: current))
            object.updatedAt = updatedAt
            try Self.checkUniqueness(of: object, db)
            try self.schema.check(object, db)
            // The after hook's event encodes the object once, for the object's row and the queued one alike.
            let event = outbox?(object)
            let row = event?.objectText ?? ObjectText(object)
            try self.checkSize(row)
            try db.execute(
                sql: "UPDATE objects SET updated_at = ?, acl = ?, data = ? WHERE class = ? AND id = ?",
                arguments: [row.updatedAt, row.acl, row.fields, className, id])
            if let password = changes.password { try Self.setPassword(password, of: object, db) }
            if let event { try self.queueAfterHook(event, db) }
            try self.insertCompanions(companions, db)
            return (object, event)
        }
    }

    @discardableResult
    public func delete(
        _ className: String, id: String, check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws -> OutboxEvent? {
        try await write { db in
            guard let current = try Self.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            try db.execute(sql: "DELETE FROM objects WHERE class = ? AND id = ?", arguments: [className, id])
            try Self.deleteAccount(of: current, db)
            let event = outbox?(self.presented(current))
            if let event { try self.queueAfterHook(event, db) }
            return event
        }
    }

    /// The columns of a new row for `object` — encoded already if `outbox` is the after hook event of
    /// its insert, encoded here otherwise; throws 116 if it is too large to store.
    func insertArguments(_ object: ParseObject, encodedIn outbox: OutboxEvent? = nil) throws -> StatementArguments {
        let text = outbox.flatMap { $0.object.objectId == object.objectId ? $0.objectText : nil } ?? ObjectText(object)
        try checkSize(text)
        return [object.className, object.objectId, text.createdAt, text.updatedAt, text.acl, text.fields]
    }

    /// Throws 116 (413) when a row's fields and ACL are larger than ``maximumObjectBytes``: checked on
    /// every write, after field operations such as `Add` have been applied, so no object grows past it.
    func checkSize(_ row: ObjectText) throws {
        guard row.fields.utf8.count + (row.acl?.utf8.count ?? 0) <= maximumObjectBytes else {
            throw ParseError(code: 116, message: "the object would be larger than \(maximumObjectBytes) bytes")
        }
    }
}
