import CloudletRuntime
import NIOCore

/// Copies an app's files from one ``FileStorage`` to another, each with its name, content type and
/// metadata, read a chunk at a time (never a whole file in memory). Files the destination has
/// already are left as they are, so that a copy run again goes on where it stopped.
enum FileCopy {
    /// The most bytes read from the source at once.
    static let chunkBytes = 1 << 20

    /// Copies every file of `source` that `destination` lacks; answers how many it copied.
    static func copy(from source: any FileStorage, to destination: any FileStorage) async throws -> Int {
        let files = try await source.all()
        let present = try await destination.existing(Set(files.map(\.name)))
        var copied = 0
        for file in files where !present.contains(file.name) {
            let staged = try await destination.stage(Chunks(storage: source, file: file), maximumBytes: Int(file.size))
            do {
                _ = try await destination.commit(staged, as: file.name, contentType: file.contentType, metadata: file.metadata)
            } catch {
                await destination.discard(staged)
                throw error
            }
            copied += 1
        }
        return copied
    }

    /// The bytes of one stored file, a range of ``chunkBytes`` read on each step.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let storage: any FileStorage
        let file: StoredFile

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var offset: Int64 = 0

            mutating func next() async throws -> ByteBuffer? {
                guard offset < chunks.file.size else { return nil }
                let range = offset..<Swift.min(offset + Int64(FileCopy.chunkBytes), chunks.file.size)
                var chunk = ByteBuffer()
                try await chunks.storage.read(chunks.file, range: range) { part in
                    var part = part
                    chunk.writeBuffer(&part)
                }
                offset = range.upperBound
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
    }
}
