import Cloudlet
import Foundation
import GRDB

extension SQLiteObjectStorage {
    public func insert(_ object: ParseObject, outbox: OutboxEvent?, alongside: [ParseObject]) async throws {
        let arguments = try insertArguments(object)
        let outboxRow = outbox.map(Self.outboxArguments)
        let companions = try companionRows(alongside)
        try await write { db in
            try Self.checkUniqueness(of: object, db)
            try self.schema.check(object, db)
            try Self.insertObject(arguments, db)
            if let outboxRow { try Self.insertOutbox(outboxRow, db) }
            try self.insertCompanions(companions, db)
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
    ) async throws -> ParseObject {
        let companions = try companionRows(alongside)
        return try await write { db in
            guard let current = try Self.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            var object = try changes.applied(to: current)
            object.updatedAt = updatedAt
            try Self.checkUniqueness(of: object, db)
            try self.schema.check(object, db)
            let row = Self.columns(object)
            try self.checkSize(row)
            try db.execute(
                sql: "UPDATE objects SET updated_at = ?, acl = ?, data = ? WHERE class = ? AND id = ?",
                arguments: [row.updatedAt, row.acl, row.data, className, id])
            if let password = changes.password { try Self.setPassword(password, of: object, db) }
            if let outbox { try Self.insertOutbox(outbox(object), db) }
            try self.insertCompanions(companions, db)
            return object
        }
    }

    public func delete(
        _ className: String, id: String, check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws {
        try await write { db in
            guard let current = try Self.fetch(db, className, id) else { throw ParseError.objectNotFound() }
            try check(current)
            try db.execute(sql: "DELETE FROM objects WHERE class = ? AND id = ?", arguments: [className, id])
            try Self.deleteAccount(of: current, db)
            if let outbox { try Self.insertOutbox(outbox(current), db) }
        }
    }

    /// The columns of a new row for `object`; throws 116 if it is too large to store.
    func insertArguments(_ object: ParseObject) throws -> StatementArguments {
        let row = Self.columns(object)
        try checkSize(row)
        return [object.className, object.objectId, row.createdAt, row.updatedAt, row.acl, row.data]
    }

    /// Throws 116 (413) when a row's fields and ACL are larger than ``maximumObjectBytes``: checked on
    /// every write, after field operations such as `Add` have been applied, so no object grows past it.
    func checkSize(_ row: (createdAt: String, updatedAt: String, acl: String?, data: String)) throws {
        guard row.data.utf8.count + (row.acl?.utf8.count ?? 0) <= maximumObjectBytes else {
            throw ParseError(code: 116, message: "the object would be larger than \(maximumObjectBytes) bytes")
        }
    }

    /// The stored text of an object's timestamps, ACL and fields.
    static func columns(_ object: ParseObject) -> (createdAt: String, updatedAt: String, acl: String?, data: String) {
        (
            ParseDate.string(from: object.createdAt ?? Date()), ParseDate.string(from: object.updatedAt ?? Date()),
            object.acl.map { JSONWriter.string($0.json) }, JSONWriter.string(.object(object.fields))
        )
    }
}
