import Cloudlet
@testable import CloudletRuntime
import Foundation
import GRDB
import NIOCore

@testable import CloudletPostgres
@testable import CloudletSQLite
@testable import CloudletServer

extension MigrateCommandTests {
    /// An app made on SQLite, and what its copy into PostgreSQL gave.
    struct Fixture {
        let folder: String
        let database: CloudletPostgres.PostgresDatabase
        let sqlite: SQLiteAppDatabase
        let stores: AppStores
        let schema: PostgresAppSchema
        let masterKey: String
        let afterHookId: String
        let reports: [AppCopyToPostgres.Report]
        let copiedFiles: String

        /// The stored name of the app's one file.
        static let fileName = "0123456789abcdef0123456789abcdef_hello.txt"

        /// Fills the app of `stores`: a user with a password and a session, a role holding it, a
        /// class with CLPs and an index, notes readable by various readers (one liking the user, one
        /// queued for its after hook), config, and a push SQLite has fanned out already. Answers the
        /// id of the queued after hook.
        static func fill(_ stores: AppStores, _ sqlite: SQLiteAppDatabase) async throws -> String {
            let user = object("_User", "u1", ["username": .string("ann")])
            let session = SessionRecord(tokenHash: "token-hash-u1", userId: "u1", installationId: nil, createdAt: now, expiresAt: now + 3600)
            try await stores.accounts.insertUser(user, passwordHash: "hash-u1", session: session, outbox: nil, alongside: [])
            try await stores.objects.insert(
                object("_Role", "r1", ["name": .string("admin")]), relations: ["users": RelationChange(targetClass: "_User", adding: ["u1"])],
                outbox: nil, alongside: [])
            let permissions = ClassLevelPermissions(grants: [.find: .init(entries: ["role:admin"])])
            try await stores.schemas.createClass(
                StoredClassSchema(
                    className: "Note", fieldTypes: ["rank": .number, "likes": .relation(targetClass: "_User")], permissions: permissions,
                    indexes: ["by_rank": [.init(field: "rank", ascending: true)]]))
            let acls: [ParseACL?] = [nil, ParseACL.only(readers: ["*"], writers: []), .only(readers: ["u1"], writers: ["u1"]), .only(readers: ["role:admin"], writers: [])]
            for index in 0..<4 {
                try await stores.objects.insert(
                    object("Note", "n\(index + 1)", ["rank": .number(Double(4 - index))], acl: acls[index], age: Double(index)),
                    relations: index == 0 ? ["likes": RelationChange(targetClass: "_User", adding: ["u1"])] : [:], outbox: nil, alongside: [])
            }
            let queued = object("Note", "n5", ["rank": .number(0)])
            let event = OutboxEvent(kind: .afterSave, object: queued, original: nil, caller: master)
            try await stores.objects.insert(queued, outbox: event)
            try await stores.config.updateGlobalConfig { _ in GlobalConfig(params: ["greeting": .string("hi")]) }
            try await stores.objects.insert(object("_PushStatus", "p1", ["status": .string("succeeded")]), outbox: nil)
            // The push was sent: its fan-out is done, and only the after hook is owed.
            try await sqlite.pool.write { db in try db.execute(sql: "DELETE FROM work_queue WHERE kind != ?", arguments: [WorkKind.afterHook.rawValue]) }
            return event.id
        }

        static func bytes(of text: String) -> AsyncStream<ByteBuffer> {
            AsyncStream { continuation in
                continuation.yield(ByteBuffer(string: text))
                continuation.finish()
            }
        }
    }
}
