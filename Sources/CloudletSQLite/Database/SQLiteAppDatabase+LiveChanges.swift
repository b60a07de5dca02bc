import Cloudlet
import CloudletRuntime
import GRDB

/// The app's writes as its LiveQuery feed hears them (``AppStores/liveChanges``): each write of
/// an object of a class the feed publishes tells it what it did once it has committed, in commit
/// order (the one writer runs what follows each commit before the next transaction begins), and
/// tells nothing if it rolls back, alone to its savepoint or with its group. Writes of a class the
/// feed does not publish cost one look at its classes.
extension SQLiteAppDatabase {
    /// Publishes, once the write of `db` has committed, that it made a `kind` of `object`
    /// (`original` before an update), if the feed publishes its class.
    func publishLive(_ kind: CommittedObjectChange.Kind, _ object: ParseObject, original: ParseObject? = nil, _ db: Database) {
        guard liveChanges.publishes(object.className) else { return }
        let change = CommittedObjectChange(kind: kind, object: asRead(object), original: original.map(asRead))
        db.afterCommit { [liveChanges] in liveChanges.publish(change) }
    }

    /// Runs `update`, a statement that may change the objects `ids` of `className` in the
    /// transaction of `db` without reading them first (a push's badges, a dead token), and
    /// publishes each object it changed, read before and after it, if the feed publishes the class.
    func publishingUpdates<Result>(of className: String, ids: [String], _ db: Database, _ update: () throws -> Result) throws -> Result {
        guard liveChanges.publishes(className) else { return try update() }
        let originals = try ids.compactMap { try ObjectRows.fetch(db, className, $0) }
        let result = try update()
        for original in originals {
            guard let object = try ObjectRows.fetch(db, className, original.objectId!), object != original else { continue }
            publishLive(.update, object, original: original, db)
        }
        return result
    }

    /// `object` as a read of its row answers it: its dates to the millisecond, its `File` values
    /// with their URLs.
    private func asRead(_ object: ParseObject) -> ParseObject {
        var object = presented(object)
        object.createdAt = object.createdAt.flatMap { ParseDate.date(from: ParseDate.string(from: $0)) }
        object.updatedAt = object.updatedAt.flatMap { ParseDate.date(from: ParseDate.string(from: $0)) }
        return object
    }
}
