import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

/// A live server whose app `a` publishes the LiveQuery events of `Message` (and the classes
/// given), on a store under test, with the REST client and feed the LiveQuery tests use.
struct LiveQueryFixture: Sendable {
    let server: LiveServer
    /// App `a`'s REST client.
    let client: ParseTestClient
    /// App `a`'s feed of committed writes.
    let feed: LiveObjectChanges

    var port: Int { server.port }

    /// Runs `body` with a fresh server on `store`, app `a` publishing `classNames`; `adjust` changes its configuration.
    static func with(
        _ store: TestStore = .sqlite, classNames: Set<String> = ["Message"], adjust: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (LiveQueryFixture) async throws -> Void
    ) async throws {
        func run(database: String?) async throws {
            try await LiveServer.with(adjust: { configuration in
                configuration.database = database
                adjust(&configuration)
            }) { server in
                let feed = try #require(server.apps.app("a")).runtime.context.stores.liveChanges
                feed.classNames = classNames
                try await body(LiveQueryFixture(server: server, client: server.client("a"), feed: feed))
            }
        }
        switch store {
        case .sqlite: try await run(database: nil)
        case .postgres: try await TemporaryPostgres.database { try await run(database: $0) }
        }
    }

    /// Publishes a committed write, as the store does after its commit.
    func publish(_ kind: CommittedObjectChange.Kind, _ object: ParseObject, original: ParseObject? = nil) {
        feed.publish(CommittedObjectChange(kind: kind, object: object, original: original))
    }

    /// A `Message` with `fields` and `acl`, its id `id`.
    static func message(_ id: String, _ fields: [String: ParseValue], acl: ParseACL? = nil) -> ParseObject {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        return ParseObject(className: "Message", objectId: id, createdAt: date, updatedAt: date, acl: acl, fields: fields)
    }

    /// Signs a user up; its id and session token.
    func signUp(_ name: String) async throws -> (id: String, token: String) {
        let reply = try await client.post("/users", ["username": .string(name), "password": "pw"])
        return (try #require(reply["objectId"]?.stringValue), try #require(reply["sessionToken"]?.stringValue))
    }

    /// Creates class `className` with `fields` and the class-level permissions `clp`.
    func schema(_ className: String, fields: [String: ParseValue], clp: ParseValue) async throws {
        let reply = try await client.post("/schemas/\(className)", ["fields": .object(fields), "classLevelPermissions": clp], master: true)
        #expect(reply.status == 200, "\(reply.body)")
    }

    /// The value of counter or gauge `name` with `labels` (as `app="a"`), 0 if it has not been recorded.
    func metric(_ name: String, _ labels: String) -> Double {
        let prefix = "\(name){\(labels)} "
        let line = String(decoding: server.metrics.exposition(), as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) } ?? 0
    }
}
