import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// An app database's log is copied back into the file beside the writer, not inside a commit, and
/// the writer still restarts the log once it passes its bound.
@Suite struct CheckpointTests {
    /// Inserts `count` objects of `bytes` bytes each (`blob0`, `blob1`, …).
    private func insert(_ count: Int, of bytes: Int = 3_000, into database: SQLiteAppDatabase) async throws {
        try await TemporaryStorage.insert(count, "Blob", idPrefix: "blob", bytes: bytes, into: SQLiteObjectStore(database))
    }

    private func size(_ file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0
    }

    @Test func theLogIsCopiedBackBesideTheWriter() async throws {
        try await TemporaryStorage.with { database, file in
            let before = size(file)
            // Past the pages that ask for a checkpoint, short of those at which the writer runs one itself.
            try await insert(Int(SQLiteCheckpointer.backgroundPages) + 200, into: database)
            let deadline = Date().addingTimeInterval(10)
            while database.checkpointer.completedCheckpoints == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(database.checkpointer.completedCheckpoints >= 1)
            // The copied pages are in the database file now.
            #expect(size(file) > before + 1_000 * 3_000)
        }
    }

    @Test func theCheckpointerRunsAsAServiceThatClosesWhenItsTaskIsCancelled() async throws {
        try await TemporaryStorage.with { database, _ in
            let service = Task { await database.checkpointer.run() }
            try await insert(10, into: database)
            #expect(!database.checkpointer.isClosed)
            service.cancel()
            await service.value
            #expect(database.checkpointer.isClosed)
        }
    }

    @Test func theWriterRestartsTheLogPastItsBoundOnItsOwn() async throws {
        // A tenth of the default bound: the same restart, after a tenth of the writes.
        let inlinePages = SQLiteCheckpointer.defaultInlinePages / 10
        try await TemporaryStorage.with(checkpointInlinePages: inlinePages) { database, file in
            #expect(database.checkpointer.inlinePages == inlinePages)
            // No checkpoint beside the writer, as when it never catches up with a busy writer.
            database.checkpointer.close()
            // Objects of ten pages or more, a quarter more pages than the bound in all.
            try await insert(Int(inlinePages) / 8, of: 40_000, into: database)
            let log = URL(fileURLWithPath: file.path + "-wal")
            // A log frame is a 4 KiB page and a 24-byte header; the log's own header is 32 bytes. The
            // write that passes the bound adds its own pages: its object's ten and its indexes'.
            let bound = (Int(inlinePages) + 32) * (4_096 + 24) + 32
            #expect(size(log) > 0)
            #expect(size(log) <= bound)
            #expect(try await SQLiteObjectStore(database).fetch("Blob", id: "blob0") != nil)
        }
    }
}
