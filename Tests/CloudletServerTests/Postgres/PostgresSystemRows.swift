import Cloudlet
import CloudletRuntime
import PostgresNIO

@testable import CloudletPostgres

extension PostgresObjectStore {
    /// Stores `object`, of a system class this store does not write yet (`_Installation`,
    /// `_PushStatus`), as its row: no field type recorded, the push trigger run as for any insert.
    func storeSystemRow(_ object: ParseObject) async throws {
        let row = ObjectText(object)
        var binds = PostgresBindings()
        binds.append(object.className)
        binds.append(object.objectId)
        binds.append(row.createdAt)
        binds.append(row.updatedAt)
        binds.append(row.acl)
        binds.append(row.fields)
        try await database.execute(
            "INSERT INTO \(table) (class, id, created_at, updated_at, acl, data) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)", binds)
    }
}
