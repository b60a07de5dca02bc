import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite

/// A store a work queue test runs on.
enum QueueStore: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty queue of this store, and a way to open the same queue again as a
    /// process started afresh would.
    func with(_ body: (any WorkQueue, _ reopen: () async throws -> any WorkQueue) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await TemporaryStorage.with { database, file in
                try await body(SQLiteWorkQueue(database)) { SQLiteWorkQueue(try SQLiteAppDatabase(path: file.path)) }
            }
        case .postgres:
            try await TemporaryPostgres.with { database, schema in
                let reopened = try PostgresDatabase(url: try PostgresTestServer.shared.url, maximumConnections: 2)
                defer { reopened.close() }
                try await body(try await PostgresWorkQueue(database, schema: schema)) { try await PostgresWorkQueue(reopened, schema: schema) }
            }
        }
    }
}
