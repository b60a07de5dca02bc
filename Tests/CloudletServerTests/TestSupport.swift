import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import GRDB
import HTTPTypes
import NIOCore
import Testing

@testable import CloudletSQLite

/// Shared helpers for the REST API suites: error shape checks, master counts, raw requests.
enum Support {
    /// Waits until `condition` holds, checking every 20 ms; fails the test after `timeout`.
    static func eventually(
        timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
    ) async throws {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the condition did not hold within \(timeout)", sourceLocation: sourceLocation)
    }

    static let appIdHeader = HTTPField.Name("X-Parse-Application-Id")!
    static let restKeyHeader = HTTPField.Name("X-Parse-REST-API-Key")!
    static let masterKeyHeader = HTTPField.Name("X-Parse-Master-Key")!
    static let sessionTokenHeader = HTTPField.Name("X-Parse-Session-Token")!

    /// Headers of a well-authenticated client call, as the test client sends them.
    static func clientHeaders(master: Bool = false) -> HTTPFields {
        var headers: HTTPFields = [:]
        headers[appIdHeader] = "test"
        if master { headers[masterKeyHeader] = "master-key" } else { headers[restKeyHeader] = "client-key" }
        headers[.contentType] = "application/json"
        return headers
    }

    /// Sends exactly `text` as the body of a client `method` call to `path`.
    static func send(
        _ client: ParseTestClient, _ method: HTTPRequest.Method, _ path: String, text: String,
        headers: HTTPFields = clientHeaders()
    ) async throws -> ParseTestClient.Reply {
        try await client.raw(method, path, headers: headers, body: ByteBuffer(string: text))
    }

    /// How many objects of `className` exist, as the master key sees them.
    static func masterCount(_ client: ParseTestClient, _ className: String) async throws -> Int {
        let reply = try await client.get("/classes/\(className)", query: ["count": 1, "limit": 0], master: true)
        #expect(reply.status == 200, "master count of \(className) failed: \(reply.body)")
        return try #require(reply["count"]?.intValue, "no count in \(reply.body)")
    }

    /// All objects of `className` as the master key sees them.
    static func masterResults(
        _ client: ParseTestClient, _ className: String, query: [String: ParseValue] = [:]
    ) async throws -> [ParseValue] {
        let reply = try await client.get("/classes/\(className)", query: query, master: true)
        #expect(reply.status == 200, "master query of \(className) failed: \(reply.body)")
        return try #require(reply["results"]?.arrayValue, "no results in \(reply.body)")
    }

    /// Creates an object as master (so that any ACL may be set) and returns its id.
    @discardableResult
    static func create(
        _ client: ParseTestClient, _ className: String, _ fields: [String: ParseValue], master: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let reply = try await client.post("/classes/\(className)", fields, master: master)
        #expect(reply.status == 201, "create failed: \(reply.status) \(reply.body)", sourceLocation: sourceLocation)
        return try #require(reply["objectId"]?.stringValue, "no objectId in \(reply.body)", sourceLocation: sourceLocation)
    }

    /// Checks that `reply` is a Parse error: the status, and a body with a number `code` and a string `error`.
    static func expectError(
        _ reply: ParseTestClient.Reply, status: Int, code: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, "status \(reply.status), body \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply["code"]?.intValue == code, "body \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply["error"]?.stringValue != nil, "body \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.body.objectValue?.count == 2, "error body has other members: \(reply.body)", sourceLocation: sourceLocation)
    }

    /// Checks that `reply` is a 4xx Parse error body with a number `code` and a string `error`.
    static func expectClientError(_ reply: ParseTestClient.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((400..<500).contains(reply.status), "status \(reply.status), body \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply["code"]?.doubleValue != nil, "body \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply["error"]?.stringValue != nil, "body \(reply.body)", sourceLocation: sourceLocation)
    }

    /// Checks that a success body does not look like an error.
    static func expectNotError(_ reply: ParseTestClient.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        let looksLikeError = reply["code"] != nil && reply["error"] != nil
        #expect(!looksLikeError, "success body carries code and error: \(reply.body)", sourceLocation: sourceLocation)
    }

    /// The `objectId`s of a query's results, in order.
    static func ids(_ reply: ParseTestClient.Reply) -> [String] {
        reply["results"]?.arrayValue?.compactMap { $0["objectId"]?.stringValue } ?? []
    }

    /// The values of `field` in a query's results, in order.
    static func values(_ reply: ParseTestClient.Reply, _ field: String) -> [ParseValue] {
        reply["results"]?.arrayValue?.map { $0[field] ?? .null } ?? []
    }

    /// Whether `text` is in Parse's date format, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    static func isParseDate(_ text: String?) -> Bool {
        guard let text else { return false }
        return (try? #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#.wholeMatch(in: text)) != nil
    }

    /// Creates `count` objects of `className` through `POST /batch`, at most 50 per batch.
    static func batchCreate(
        _ client: ParseTestClient, _ className: String, count: Int, fields: (Int) -> [String: ParseValue]
    ) async throws {
        var index = 0
        while index < count {
            let end = min(index + 50, count)
            let requests: [ParseValue] = (index..<end).map { i in
                ["method": "POST", "path": .string("/parse/classes/\(className)"), "body": .object(fields(i))]
            }
            let reply = try await client.post("/batch", ["requests": .array(requests)])
            #expect(reply.status == 200, "batch failed: \(reply.body)")
            let entries = try #require(reply.body.arrayValue, "batch reply is not an array: \(reply.body)")
            #expect(entries.count == end - index)
            #expect(entries.allSatisfy { $0["success"]?["objectId"]?.stringValue != nil }, "batch entries: \(entries)")
            index = end
        }
    }
}

/// An app database as an earlier version left it, for the tests of the migrations that upgrade it:
/// its schema migrated up to one migration only, then filled with rows of that schema, and closed.
struct OldAppDatabase {
    /// The temporary folder that holds it; ``remove()`` deletes it.
    let folder: URL
    /// The database file.
    var path: String { folder.appendingPathComponent("app.sqlite").path }

    /// A database migrated up to `lastMigration` and filled by `fill`.
    init(madeUpTo lastMigration: String, fill: @escaping @Sendable (Database) throws -> Void) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-old-database-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // As Cloudlet's own databases do: SQLite starts with the process's settings, whichever test opens a database first.
        SQLiteProcessSettings.apply()
        let old = try DatabaseQueue(path: folder.appendingPathComponent("app.sqlite").path)
        try SQLiteMigrations.migrator.migrate(old, upTo: lastMigration)
        try await old.write(fill)
        try old.close()
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
