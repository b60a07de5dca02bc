import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// Saves and deletes: each one transaction with the after hook it owes (a row of the work queue)
/// and the objects stored alongside it, published to the app's LiveQuery feed once committed.
extension SQLiteObjectStore {
    public func insert(
        _ object: ParseObject, relations: [String: RelationChange], outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws {
        let arguments = try rows.arguments(object, encodedIn: outbox)
        let afterHookRow = outbox.map(SQLiteWorkQueue.afterHookRow)
        let companions = try rows.companions(alongside)
        try await database.write { db in
            try ObjectRows.checkUniqueness(of: object, db)
            try self.rows.insert(object, arguments, db)
            try SQLiteRelations.apply(relations, owner: object.className, id: object.objectId!, db)
            if let afterHookRow { try self.queue.queueAfterHook(afterHookRow, isHeld: outbox?.hold != nil, db) }
            try self.rows.insertCompanions(companions, db)
        }
    }

    public func update(
        _ className: String, id: String, changes: ObjectChanges, updatedAt: Date,
        check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?, alongside: [ParseObject]
    ) async throws -> (object: ParseObject, event: OutboxEvent?) {
        let companions = try rows.companions(alongside)
        return try await database.write { db in
            guard let current = try ObjectRows.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            // Stored and handed to the after hook with its `File` URLs rebuilt, as every read answers it.
            var object = self.database.presented(try changes.applied(to: current))
            object.updatedAt = updatedAt
            try ObjectRows.checkUniqueness(of: object, changedFrom: current, db)
            try self.database.schema.check(object, db)
            // The after hook's event encodes the object once, for the object's row and the queued one alike.
            let event = outbox?(object)
            let row = event?.objectText ?? ObjectText(object)
            try self.rows.checkSize(row)
            try db.execute(
                sql: "UPDATE objects SET updated_at = ?, acl = ?, data = ? WHERE class = ? AND id = ?",
                arguments: [row.updatedAt, row.acl, row.fields, className, id])
            self.database.publishLive(.update, object, original: current, db)
            try SQLiteRelations.apply(changes.relations, owner: className, id: id, db)
            if let password = changes.password { try SQLiteAccountStore.setPassword(password, of: object, db) }
            if let event { try self.queue.queueAfterHook(event, db) }
            try self.rows.insertCompanions(companions, db)
            return (object, event)
        }
    }

    @discardableResult
    public func delete(
        _ className: String, id: String, check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws -> OutboxEvent? {
        try await database.write { db in
            guard let current = try ObjectRows.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            try db.execute(sql: "DELETE FROM objects WHERE class = ? AND id = ?", arguments: [className, id])
            self.database.publishLive(.delete, current, db)
            try SQLiteRelations.removeAll(of: className, id: id, db)
            try SQLiteAccountStore.deleteAccount(of: current, db)
            let event = outbox?(self.database.presented(current))
            if let event { try self.queue.queueAfterHook(event, db) }
            return event
        }
    }
}
