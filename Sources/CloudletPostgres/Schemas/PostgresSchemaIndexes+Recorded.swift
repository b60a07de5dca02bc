import Cloudlet
import CloudletRuntime
import Logging
import PostgresNIO

extension PostgresSchemaIndexes {
    /// Makes every index the `classes` rows of `schema` record, over the types its `fields` rows
    /// give: what rows copied from another store (which name their indexes but cannot bring them)
    /// need before queries can use them. In the transaction of `connection`.
    package static func createRecorded(in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        var recorded: [(className: String, indexes: String)] = []
        for try await row in try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT class, indexes FROM \(schema.quoted).classes WHERE indexes <> '{}'"), logger: logger
        ).decode((String, String).self) { recorded.append(row) }
        for (className, document) in recorded {
            var types: [String: ParseFieldType] = [:]
            for try await (field, type) in try await connection.run(
                "SELECT field, type FROM \(schema.quoted).fields WHERE class = $1", PostgresBindings(className), logger: logger
            ).decode((String, String).self) { types[field] = ParseFieldType(storedName: type) }
            for (name, keys) in StoredClassSchema.indexes(fromDocument: try JSONParser.parse(document)) {
                try await create(name, keys, on: className, types: types, in: schema, on: connection, logger: logger)
            }
        }
    }
}
