import Cloudlet
import CloudletRuntime
import GRDB

/// Rows of the `objects` table as every store reads and writes them inside its own transactions
/// (a user's with its credentials, a job run's with its queued run): encoded and bounded in size
/// before the transaction starts, their fields' types checked and their classes' unique values
/// kept unique inside it.
struct ObjectRows: Sendable {
    let database: SQLiteAppDatabase

    /// The object `id` of `className` as stored, in the transaction of `db`; nil if there is none.
    static func fetch(_ db: Database, _ className: String, _ id: String) throws -> ParseObject? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, created_at, updated_at, acl, data FROM objects WHERE class = ? AND id = ?"),
            arguments: [className, id]
        ).map { try object(className, $0) }
    }

    /// The object in `row`, charged to `budget` (if any) before it is parsed.
    static func object(_ className: String, _ row: Row, budget: ReadBudget? = nil) throws -> ParseObject {
        let data: String = row["data"]
        let acl: String? = row["acl"]
        try budget?.charge(bytes: ReadBudget.storedSize(data: data, acl: acl))
        return ParseObject(
            className: className,
            objectId: row["id"],
            createdAt: ParseDate.date(from: row["created_at"]),
            updatedAt: ParseDate.date(from: row["updated_at"]),
            acl: try acl.flatMap { ParseACL(json: try JSONParser.parse($0)) },
            fields: try JSONParser.parse(data).objectValue ?? [:])
    }

    /// The columns of a new row for `object` — encoded already if `outbox` is the after hook event of
    /// its insert, encoded here otherwise; throws 116 if it is too large to store.
    func arguments(_ object: ParseObject, encodedIn outbox: OutboxEvent? = nil) throws -> StatementArguments {
        let text = outbox.flatMap { $0.object.objectId == object.objectId ? $0.objectText : nil } ?? ObjectText(object)
        try checkSize(text)
        return [object.className, object.objectId, text.createdAt, text.updatedAt, text.acl, text.fields]
    }

    /// Throws 116 (413) when a row's fields and ACL are larger than the database's bound: checked on
    /// every write, after field operations such as `Add` have been applied, so no object grows past it.
    func checkSize(_ row: ObjectText) throws {
        let maximum = database.maximumObjectBytes
        guard row.fields.utf8.count + (row.acl?.utf8.count ?? 0) <= maximum else {
            throw ParseError(code: 116, message: "the object would be larger than \(maximum) bytes")
        }
    }

    /// Inserts `object`, whose row is `arguments`, in the transaction of `db`, once its fields'
    /// types are checked, and publishes it once the transaction commits. A push job's fan-out
    /// (which a trigger queues) wakes the work loop then too.
    func insert(_ object: ParseObject, _ arguments: StatementArguments, _ db: Database) throws {
        try database.schema.check(object, db)
        try db.cachedStatement(sql: "INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: arguments)
        database.publishLive(.create, object, db)
        guard object.className == "_PushStatus" else { return }
        db.afterCommit { [workQueued = database.workQueued] in workQueued.signal() }
    }

    /// The rows of the new objects stored alongside a write, checked for size before it starts.
    func companions(_ objects: [ParseObject]) throws -> [(ParseObject, StatementArguments)] {
        try objects.map { ($0, try arguments($0)) }
    }

    /// Inserts the objects stored alongside a write, in its transaction.
    func insertCompanions(_ rows: [(ParseObject, StatementArguments)], _ db: Database) throws {
        for (object, arguments) in rows { try insert(object, arguments, db) }
    }

    /// Throws when another object of its class holds a value that must be unique: a user's
    /// username (202), email (203) or `authData` ids (208), an installation's `installationId`
    /// (137), a role's name (137). On an update, only the fields that differ from `stored` are
    /// looked up: a value that has not changed was unique when it was written.
    static func checkUniqueness(of object: ParseObject, changedFrom stored: ParseObject? = nil, _ db: Database) throws {
        var changed = object
        if let stored { changed.fields = object.fields.filter { stored.fields[$0.key] != $0.value } }
        guard !changed.fields.isEmpty else { return }
        switch object.className {
        case "_User": try SQLiteAccountStore.checkUniqueness(of: changed, db)
        case "_Installation": try SQLiteInstallationIndex.checkUniqueness(of: changed, db)
        case "_Role": try SQLiteRoles.checkUniqueness(of: changed, db)
        default: return
        }
    }
}
