import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// Every method of ``FileStorage`` on each store: a folder on the local disk, and the app's
/// PostgreSQL schema (whose chunk edges the sizes and ranges fall on), read through a second node.
@Suite struct FileStorageTests {
    typealias Under = FileStorageUnderTest
    static let chunk = FileStorageUnderTest.chunk

    @Test(arguments: TestStore.allCases) func aFileOfEverySizeReadsBackWholeThroughEitherNode(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, reopen async throws in
            let other = try await reopen()
            for size in [0, 1, Self.chunk, Self.chunk * 5 / 2] {
                let bytes = Under.bytes(size, seed: size)
                let name = Under.name("size-\(size).bin")
                let before = Date().addingTimeInterval(-1)
                let stored = try await Under.store(bytes, as: name, in: files, metadata: ["size": .number(Double(size))])
                #expect(stored.size == Int64(size))
                #expect(stored.etag == StoredFile.entityTag(sha256: SHA256Hasher.hash(bytes).bytes))
                let seen = try #require(try await other.file(name), "committed through one node, seen through the other")
                #expect(seen.size == stored.size && seen.etag == stored.etag && seen.contentType == "application/x-test")
                #expect(seen.metadata == ["size": .number(Double(size))])
                #expect(seen.createdAt > before && seen.createdAt < Date().addingTimeInterval(1))
                let read = try await Under.read(seen, 0..<seen.size, from: other)
                #expect(read.bytes == bytes, "\(size) bytes")
            }
            #expect(try await other.all().map(\.size).sorted() == [0, 1, Int64(Self.chunk), Int64(Self.chunk * 5 / 2)])
            #expect(try await Under.leftovers(in: files) == 0)
        }
    }

    @Test(arguments: TestStore.allCases) func rangesAtChunkEdgesReadExactlyTheirBytes(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, _ async throws in
            let bytes = Under.bytes(Self.chunk * 5 / 2)
            let file = try await Under.store(bytes, as: Under.name("ranges.bin"), in: files, piece: 77_777)
            let chunk = Int64(Self.chunk), size = file.size
            let ranges: [Range<Int64>] = [
                0..<1, chunk - 1..<chunk, chunk - 1..<chunk + 1, chunk..<chunk + 1, chunk..<2 * chunk, chunk + 5..<chunk + 15,
                2 * chunk - 1..<size, size - 1..<size, 1..<size - 1, 0..<size, 7..<7,
            ]
            for range in ranges {
                let read = try await Under.read(file, range, from: files)
                #expect(read.bytes == Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), "\(range)")
            }
            #expect(try await Under.read(file, chunk + 5..<chunk + 15, from: files).writes == 1, "a range inside one chunk is one read")
            #expect(try await Under.read(file, 7..<7, from: files).writes == 0)
        }
    }

    @Test(arguments: TestStore.allCases) func anUploadPastTheLimitIsRefusedMidStreamAndLeavesNothingStaged(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, _ async throws in
            let body = Pieces(Under.bytes(Self.chunk * 3), piece: 64 << 10)
            let limit = Self.chunk + 10
            await #expect(throws: FileStorageError.tooLarge(maximumBytes: limit)) {
                try await files.stage(body, maximumBytes: limit)
            }
            #expect(body.taken.value == Self.chunk / (64 << 10) + 1, "refused at the piece that passes the limit, not at the end")
            #expect(try await Under.leftovers(in: files) == 0)
            #expect(try await files.all().isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func aCommitOverAStoredNameIsRefusedAndKeepsTheStoredBytes(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, reopen async throws in
            let name = Under.name("again.bin")
            let older = Under.bytes(Self.chunk * 2, seed: 1)
            let stored = try await Under.store(older, as: name, in: files)
            let other = try await reopen()
            let staged = try await other.stage(Pieces(Under.bytes(Self.chunk / 2, seed: 2), piece: 10_000), maximumBytes: Self.chunk)
            await #expect(throws: (any Error).self) {
                try await other.commit(staged, as: name, contentType: "text/plain", metadata: [:])
            }
            await other.discard(staged)
            let file = try #require(try await files.file(name))
            #expect(file.size == stored.size && file.etag == stored.etag && file.contentType == stored.contentType)
            #expect(try await Under.read(file, 0..<file.size, from: other).bytes == older)
            #expect(try await files.all().map(\.name) == [name])
            #expect(try await Under.leftovers(in: files) == 0, "the refused upload's bytes are gone once discarded")
        }
    }

    @Test(arguments: TestStore.allCases) func aDiscardedUploadLeavesNothingAndCannotBeCommitted(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, _ async throws in
            let staged = try await files.stage(Pieces(Under.bytes(Self.chunk + 3), piece: 50_000), maximumBytes: 1 << 20)
            #expect(staged.size == Int64(Self.chunk + 3))
            #expect(try await Under.leftovers(in: files) > 0)
            await files.discard(staged)
            #expect(try await Under.leftovers(in: files) == 0)
            await #expect(throws: (any Error).self) {
                try await files.commit(staged, as: Under.name("dropped.bin"), contentType: "text/plain", metadata: [:])
            }
            #expect(try await files.all().isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func deleteAllAndExistingSeeWhatIsStored(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, reopen async throws in
            let names = ["c.txt", "a.txt", "b.txt"].map(Under.name)
            for name in names { try await Under.store(Under.bytes(Self.chunk + 1), as: name, in: files) }
            let missing = Under.name("missing.txt")
            #expect(try await files.all().map(\.name) == names.sorted())
            #expect(try await files.existing([names[0], names[1], missing]) == [names[0], names[1]])
            #expect(try await files.existing([]) == [])
            #expect(try await files.file(missing) == nil)
            let other = try await reopen()
            #expect(try await other.delete(names[0]))
            #expect(try await other.delete(names[0]) == false)
            #expect(try await files.file(names[0]) == nil)
            #expect(try await files.existing(Set(names)) == [names[1], names[2]])
            #expect(try await files.all().map(\.name) == [names[1], names[2]].sorted())
            #expect(try await Under.leftovers(in: files) == 0, "a deleted file's bytes are gone")
        }
    }

    @Test(arguments: TestStore.allCases) func anUploadAbandonedByADeadNodeIsRemovedLater(_ store: TestStore) async throws {
        try await store.with(TestApp.fileStorage) { files, reopen async throws in
            let abandoned = try await files.stage(Pieces(Under.bytes(Self.chunk * 2), piece: 1 << 20), maximumBytes: 1 << 22)
            let recent = try await files.stage(Pieces(Under.bytes(10), piece: 10), maximumBytes: 10)
            try await Under.age(abandoned, by: 2 * 60 * 60, in: files)
            let survivor = try await reopen()
            #expect(try await survivor.removeAbandonedUploads(olderThan: Date().addingTimeInterval(-60 * 60)) == 1)
            await #expect(throws: (any Error).self) {
                try await files.commit(abandoned, as: Under.name("late.bin"), contentType: "text/plain", metadata: [:])
            }
            let kept = try await files.commit(recent, as: Under.name("recent.bin"), contentType: "text/plain", metadata: [:])
            #expect(try await Under.read(kept, 0..<10, from: survivor).bytes == Under.bytes(10))
            #expect(try await Under.leftovers(in: files) == 0)
        }
    }
}
