import Foundation
import GRDB
import Hummingbird
import Logging
import NIOCore

/// The floor Cloudlet is measured against: a bare Hummingbird route that decodes the body with
/// Foundation's `JSONDecoder`, runs a trivial closure on it and inserts it through GRDB, without any
/// of Cloudlet's work (keys, Parse validation, field schema, hooks and their deadlines, queued after hooks).
enum BareBaseline {
    /// The object the benchmark saves, as a plain Codable struct.
    struct Object: Codable, Sendable {
        var text: String
        var channel: String
        var clientId: String
        var kind: String
        var senderId: String?
    }

    /// The answer to a save, shaped like Parse's.
    struct Created: ResponseEncodable {
        let objectId: String
        let createdAt: String
    }

    /// The stand-in for a before-save hook: it sets the field the other servers' hooks set.
    private static let check: @Sendable (inout Object) -> Void = { $0.senderId = SaveRequest.hookValue }

    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let idAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// The baseline server: `POST /parse/classes/:className` into `objects.sqlite` under `dataDirectory`
    /// (WAL, `synchronous=NORMAL`), on 127.0.0.1 with a port the system picks.
    static func application(
        dataDirectory: String, logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> some ApplicationProtocol {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: dataDirectory + "/objects.sqlite", configuration: configuration)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE objects (id TEXT PRIMARY KEY, data TEXT NOT NULL)")
        }
        let router = Router()
        router.post("/parse/classes/:className") { request, context -> EditedResponse<Created> in
            var object = try await JSONDecoder().decode(Object.self, from: request, context: context)
            check(&object)
            let id = String((0..<10).map { _ in idAlphabet.randomElement()! })
            let data = String(decoding: try JSONEncoder().encode(object), as: UTF8.self)
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO objects (id, data) VALUES (?, ?)", arguments: [id, data])
            }
            return EditedResponse(status: .created, response: Created(objectId: id, createdAt: dateStyle.format(Date())))
        }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: onServerRunning, logger: logger)
    }
}
