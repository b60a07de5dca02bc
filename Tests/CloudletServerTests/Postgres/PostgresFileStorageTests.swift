import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres

/// What only the PostgreSQL file storage has to hold: apps apart in one database, nodes at once
/// on one name, stages swept by the next upload, and a read never mixing two files' bytes.
@Suite struct PostgresFileStorageTests {
    typealias Under = FileStorageUnderTest
    static let chunk = FileStorageUnderTest.chunk

    @Test func theSameNameInTwoAppsStaysApart() async throws {
        try await TemporaryPostgres.with { database, schema async throws in
            let neighbour = PostgresAppSchema(appId: schema.name + "-neighbour")
            defer { Task { try? await database.execute("DROP SCHEMA IF EXISTS \(neighbour.quoted) CASCADE") } }
            let mine = try await PostgresFileStorage(database, schema: schema)
            let theirs = try await PostgresFileStorage(database, schema: neighbour)
            let name = Under.name("shared.bin")
            let myBytes = Under.bytes(Self.chunk + 5, seed: 1), theirBytes = Under.bytes(3, seed: 2)
            try await Under.store(myBytes, as: name, in: mine)
            try await Under.store(theirBytes, as: name, in: theirs)
            let myFile = try #require(try await mine.file(name)), theirFile = try #require(try await theirs.file(name))
            #expect(try await Under.read(myFile, 0..<myFile.size, from: mine).bytes == myBytes)
            #expect(try await Under.read(theirFile, 0..<theirFile.size, from: theirs).bytes == theirBytes)
            await #expect(throws: PostgresFileStorageError.contentGone(name: name), "their description names none of my bytes") {
                try await Under.read(theirFile, 0..<theirFile.size, from: mine)
            }
            #expect(try await theirs.delete(name))
            #expect(try await mine.existing([name]) == [name])
            #expect(try await theirs.all().isEmpty)
            #expect(try await Under.read(myFile, 0..<myFile.size, from: mine).bytes == myBytes)
            try await database.execute("DROP SCHEMA \(neighbour.quoted) CASCADE")
        }
    }

    @Test func theNextUploadOnAnyNodeSweepsAStageAbandonedAnHourAgo() async throws {
        try await TestStore.postgres.with(TestApp.fileStorage) { files, reopen async throws in
            let abandoned = try await files.stage(Pieces(Under.bytes(Self.chunk * 2), piece: 1 << 20), maximumBytes: 1 << 22)
            try await Under.age(abandoned, by: PostgresFileStorage.abandonedAfter + 60, in: files)
            let fresh = try await reopen().stage(Pieces([], piece: 1), maximumBytes: 1)
            #expect(try await Under.leftovers(in: files) == 1, "only the new stage is left, with no chunk")
            await files.discard(fresh)
            #expect(try await Under.leftovers(in: files) == 0)
        }
    }

    @Test func commitsOfOneNameThroughTwoNodesAtOnceStoreOneUploadWhole() async throws {
        try await TestStore.postgres.with(TestApp.fileStorage) { files, reopen async throws in
            let nodes = [files, try await reopen()]
            let name = Under.name("contended.bin")
            let uploads = (0..<6).map { Under.bytes(Self.chunk + $0 * 1000, seed: $0) }
            let refusals = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, bytes) in uploads.enumerated() {
                    group.addTask {
                        let node = nodes[index % 2]
                        let staged = try await node.stage(Pieces(bytes, piece: 100_000), maximumBytes: bytes.count)
                        do {
                            _ = try await node.commit(staged, as: name, contentType: "text/plain", metadata: [:])
                            return 0
                        } catch PostgresFileStorageError.nameTaken(name) {
                            await node.discard(staged)
                            return 1
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(refusals == uploads.count - 1)
            let file = try #require(try await files.file(name))
            let read = try await Under.read(file, 0..<file.size, from: nodes[1]).bytes
            #expect(uploads.contains(read), "the bytes of one upload, whole")
            #expect(try await Under.leftovers(in: files) == 0, "every refused upload's chunks are gone")
        }
    }

    @Test func aFileDeletedAndStoredAgainWhileReadIsCutOffRatherThanMixed() async throws {
        try await TestStore.postgres.with(TestApp.fileStorage) { files, reopen async throws in
            let name = Under.name("moving.bin")
            let first = try await Under.store(Under.bytes(Self.chunk * 2, seed: 1), as: name, in: files)
            let other = try await reopen()
            var handed = 0
            await #expect(throws: PostgresFileStorageError.contentGone(name: name)) {
                try await files.read(first, range: 0..<first.size) { _ in
                    handed += 1
                    if handed == 1 {
                        _ = try await other.delete(name)
                        try await Under.store(Under.bytes(Self.chunk * 2, seed: 2), as: name, in: other)
                    }
                }
            }
            #expect(handed == 1)
        }
    }
}
