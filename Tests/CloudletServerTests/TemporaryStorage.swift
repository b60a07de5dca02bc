import Cloudlet
import Foundation

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// An app database in a fresh temporary folder, for tests of the SQLite layer itself.
enum TemporaryStorage {
    /// Runs `body` with a new `SQLiteAppDatabase` and its file, then deletes the folder. The
    /// database's writer checkpoints inside its commit once the log passes `checkpointInlinePages`.
    static func with(
        checkpointInlinePages: Int32 = SQLiteCheckpointer.defaultInlinePages, _ body: (SQLiteAppDatabase, URL) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("app.sqlite")
        try await body(try SQLiteAppDatabase(path: file.path, checkpointInlinePages: checkpointInlinePages), file)
    }

    /// Inserts `count` objects of `className` (`\(prefix)0`, `\(prefix)1`, …), each with a number
    /// and a string of `bytes` bytes: every commit adds a page to the log, and one more for each 4 KiB.
    static func insert(_ count: Int, _ className: String, idPrefix prefix: String, bytes: Int, into objects: any ObjectStorage) async throws {
        for n in 0..<count {
            // The bytes sit inside an object, where the text index (which takes top-level strings) leaves
            // them: each insert writes its object's pages and no more.
            let filler: ParseValue = ["text": .string(String(repeating: "x", count: bytes))]
            var object = ParseObject(className: className, fields: ["n": .number(Double(n)), "bytes": filler])
            object.objectId = prefix + String(n)
            object.createdAt = Date()
            object.updatedAt = object.createdAt
            try await objects.insert(object, outbox: nil)
        }
    }
}
