import Cloudlet
import CloudletRuntime
import Foundation
import NIOCore
import PostgresNIO
import Synchronization
import SystemPackage

@testable import CloudletPostgres

/// What the file storage tests upload and look into, on either store.
enum FileStorageUnderTest {
    /// The bytes of a PostgreSQL chunk.
    static let chunk = PostgresFileStorage.chunkBytes

    /// `count` bytes in which every offset of a chunk differs from its neighbours'.
    static func bytes(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 31 &+ ($0 >> 8)) }
    }

    /// A new stored name for `name`.
    static func name(_ name: String) -> String { FileName.stored(for: name) }

    /// Stages `bytes` through `files` in pieces of `piece` bytes and commits them as `name`.
    @discardableResult
    static func store(
        _ bytes: [UInt8], as name: String, in files: any FileStorage, piece: Int = 100_000, metadata: [String: ParseValue] = [:]
    ) async throws -> StoredFile {
        let staged = try await files.stage(Pieces(bytes, piece: piece), maximumBytes: bytes.count)
        return try await files.commit(staged, as: name, contentType: "application/x-test", metadata: metadata)
    }

    /// The bytes of `file` in `range` read through `files`, and how many times they were handed over.
    static func read(_ file: StoredFile, _ range: Range<Int64>, from files: any FileStorage) async throws -> (bytes: [UInt8], writes: Int) {
        var bytes: [UInt8] = []
        var writes = 0
        try await files.read(file, range: range) { chunk in
            bytes += chunk.readableBytesView
            writes += 1
        }
        return (bytes, writes)
    }

    /// How many staged uploads, and bytes that no file serves, `files` holds: none once every
    /// upload was committed or dropped.
    static func leftovers(in files: any FileStorage) async throws -> Int {
        switch files {
        case let local as LocalFileStorage:
            return try FileManager.default.contentsOfDirectory(atPath: local.folder.appending(".uploads").string).count
        case let postgres as PostgresFileStorage:
            let sql = """
                SELECT (SELECT count(*) FROM \(postgres.table("file_stages")))
                     + (SELECT count(*) FROM \(postgres.table("file_chunks")) AS c
                        WHERE NOT EXISTS (SELECT 1 FROM \(postgres.table("files")) AS f WHERE f.content = c.content))
                """
            let rows = try await postgres.database.client.query(PostgresQuery(unsafeSQL: sql), logger: postgres.database.logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        default:
            fatalError("a file storage the tests do not know")
        }
    }

    /// Makes the staged upload `staged` look last written to `age` seconds ago, as one a node left when it died.
    static func age(_ staged: StagedFile, by age: TimeInterval, in files: any FileStorage) async throws {
        switch files {
        case let local as LocalFileStorage:
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: local.folder.appending([".uploads", .init(staged.id)!]).string)
        case let postgres as PostgresFileStorage:
            var binds = PostgresBindings()
            binds.append(Date().addingTimeInterval(-age))
            binds.append(UUID(uuidString: staged.id)!)
            try await postgres.database.execute("UPDATE \(postgres.table("file_stages")) SET touched_at = $1 WHERE content = $2", binds)
        default:
            fatalError("a file storage the tests do not know")
        }
    }
}

/// An upload's body: `bytes` in pieces of `piece` bytes, counting how many pieces were taken.
struct Pieces: AsyncSequence, Sendable {
    let bytes: [UInt8]
    let piece: Int
    let taken = Counter()

    init(_ bytes: [UInt8], piece: Int) {
        self.bytes = bytes
        self.piece = piece
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let pieces: Pieces
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < pieces.bytes.count else { return nil }
            let end = Swift.min(offset + pieces.piece, pieces.bytes.count)
            defer { offset = end }
            pieces.taken.add()
            return ByteBuffer(bytes: pieces.bytes[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pieces: self) }
}
