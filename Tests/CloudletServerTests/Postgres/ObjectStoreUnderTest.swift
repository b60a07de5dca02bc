import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite

/// An app's objects and work queue on one store, for tests that run one body on both: the writes
/// both stores make so far, the installations found by key, and the queue their after hooks go to.
struct ObjectStoreUnderTest: Sendable {
    /// Which store.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite
        case postgres

        var testDescription: String { rawValue }
    }

    let work: any WorkQueue
    let insert: @Sendable (ParseObject, OutboxEvent?) async throws -> Void
    let update:
        @Sendable (String, String, ObjectChanges, Date, @escaping @Sendable (ParseObject) throws -> Void, (@Sendable (ParseObject) -> OutboxEvent)?)
            async throws -> (object: ParseObject, event: OutboxEvent?)
    let delete: @Sendable (String, String, @escaping @Sendable (ParseObject) throws -> Void, (@Sendable (ParseObject) -> OutboxEvent)?) async throws -> OutboxEvent?
    let fetch: @Sendable (String, String) async throws -> ParseObject?
    let installations: @Sendable (InstallationKey, String, Int) async throws -> [ParseObject]
    let sharedTransaction: @Sendable (WriteDeadline) -> any SharedTransaction

    /// Runs `body` with a new, empty app on `kind`.
    static func with(_ kind: Kind, _ body: (ObjectStoreUnderTest) async throws -> Void) async throws {
        try await TestStore(rawValue: kind.rawValue)!.with({ app in { try await opening(app) } }) { store, _ in try await body(store) }
    }

    /// The objects and work queue of `app`.
    static func opening(_ app: TestApp) async throws -> ObjectStoreUnderTest {
        switch app {
        case .sqlite(let database):
            let stores = AppStores(database)
            return ObjectStoreUnderTest(
                work: stores.work, insert: { try await stores.objects.insert($0, outbox: $1) },
                update: { try await stores.objects.update($0, id: $1, changes: $2, updatedAt: $3, check: $4, outbox: $5, alongside: []) },
                delete: { try await stores.objects.delete($0, id: $1, check: $2, outbox: $3) },
                fetch: { try await stores.objects.fetch($0, id: $1) },
                installations: { try await stores.objects.installations(with: $0, equalTo: $1, limit: $2) },
                sharedTransaction: { stores.objects.sharedTransaction(deadline: $0) })
        case .postgres(let database, let schema):
            let objects = try await PostgresObjectStore(database, schema: schema)
            return ObjectStoreUnderTest(
                work: try await PostgresWorkQueue(database, schema: schema), insert: { try await objects.insert($0, outbox: $1) },
                update: { try await objects.update($0, id: $1, changes: $2, updatedAt: $3, check: $4, outbox: $5) },
                delete: { try await objects.delete($0, id: $1, check: $2, outbox: $3) },
                fetch: { try await objects.fetch($0, id: $1) },
                installations: { try await objects.installations(with: $0, equalTo: $1, limit: $2) },
                sharedTransaction: { objects.sharedTransaction(deadline: $0) })
        }
    }
}
