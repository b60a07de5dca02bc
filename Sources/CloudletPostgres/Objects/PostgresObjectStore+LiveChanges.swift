import Cloudlet
import CloudletRuntime
import PostgresNIO

/// The writes of the app's objects as every node's LiveQuery feed hears of them
/// (``PostgresLiveChanges``): each write of an object of a class this node's feed publishes
/// notifies in its transaction what it did. Writes of a class the feed does not publish cost one
/// look at its classes.
extension PostgresObjectStore {
    /// Tells every node, at the commit of the transaction of `connection`, that it made a `kind`
    /// of `object` (`original` before an update), if the feed publishes its class.
    func notifyLive(_ kind: CommittedObjectChange.Kind, _ object: ParseObject, original: ParseObject? = nil, on connection: PostgresConnection) async throws {
        guard liveChanges.publishes(object.className) else { return }
        try await PostgresLiveChanges.notify(
            CommittedObjectChange(kind: kind, object: object, original: original), in: schema, on: connection, logger: database.logger)
    }

    /// Runs `update`, a statement that may change the objects `ids` of `className` in the
    /// transaction of `connection` without reading them first (a push's badges, a dead token), and
    /// tells of each object it changed, read (and locked) before and read after it, if the feed
    /// publishes the class.
    func notifyingLiveUpdates<Result>(
        of className: String, ids: [String], on connection: PostgresConnection, _ update: () async throws -> Result
    ) async throws -> Result {
        guard liveChanges.publishes(className) else { return try await update() }
        let originals = try await lockedObjects(className, ids, on: connection)
        let result = try await update()
        let objects = Dictionary(try await lockedObjects(className, ids, on: connection).map { ($0.objectId, $0) }) { first, _ in first }
        for original in originals {
            guard let object = objects[original.objectId], object != original else { continue }
            try await notifyLive(.update, object, original: original, on: connection)
        }
        return result
    }

    /// The objects `ids` of `className` as stored, in the order of their ids, their rows locked until the transaction ends.
    private func lockedObjects(_ className: String, _ ids: [String], on connection: PostgresConnection) async throws -> [ParseObject] {
        let rows = try await connection.run(
            "SELECT id, created_at, updated_at, acl::text, data::text FROM \(table) WHERE class = $1 AND id = ANY($2) ORDER BY id FOR UPDATE",
            PostgresBindings(className, ids), logger: database.logger)
        var objects: [ParseObject] = []
        for try await row in rows.decode((String, String, String, String?, String).self) { objects.append(try Self.object(className, row)) }
        return objects
    }
}
