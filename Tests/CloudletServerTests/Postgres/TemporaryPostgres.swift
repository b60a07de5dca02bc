import Foundation
import PostgresTestServer

@testable import CloudletPostgres

/// An app schema of its own on the tests' PostgreSQL server, for tests of the PostgreSQL store.
enum TemporaryPostgres {
    /// Runs `body` with a new connection pool to the server and a schema no other test uses, then
    /// drops the schema and closes the pool.
    static func with(_ body: (PostgresDatabase, PostgresAppSchema) async throws -> Void) async throws {
        let database = try PostgresDatabase(url: try await PostgresTestServer.shared.url, maximumConnections: 4)
        let schema = PostgresAppSchema(appId: "test-" + UUID().uuidString.prefix(8).lowercased())
        defer { database.close() }
        do {
            try await body(database, schema)
        } catch {
            _ = try? await database.execute("DROP SCHEMA IF EXISTS \(schema.quoted) CASCADE")
            throw error
        }
        try await database.execute("DROP SCHEMA IF EXISTS \(schema.quoted) CASCADE")
    }

    /// Another pool to the same server, as a second node has: closed when `body` returns.
    static func secondNode<Result>(_ body: (PostgresDatabase) async throws -> Result) async throws -> Result {
        let database = try PostgresDatabase(url: try await PostgresTestServer.shared.url, maximumConnections: 4)
        defer { database.close() }
        return try await body(database)
    }

    /// Runs `body` with the URL of a new database on the server, which no other test uses (as a
    /// group of nodes shares one: the registry's schema is the same name in each), then drops it.
    static func database<Result>(_ body: (String) async throws -> Result) async throws -> Result {
        let server = try await PostgresTestServer.shared
        let url = try server.newDatabase()
        let name = String(url.split(separator: "/").last!.prefix { $0 != "?" })
        let admin = try PostgresDatabase(url: server.url, maximumConnections: 1)
        defer { admin.close() }
        let result: Result
        do {
            result = try await body(url)
        } catch {
            _ = try? await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
        try await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
        return result
    }
}
