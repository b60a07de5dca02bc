import Cloudlet
import Foundation
import NIOCore

/// Where an app's files live. The upload and download routes, the check that a saved `File`
/// value names a stored file, and `cloudlet files prune` see only this protocol; ``LocalFileStorage``
/// (a folder on the local disk) is the default.
///
/// Names given here are stored names already checked by ``FileName``.
public protocol FileStorage: Sendable {
    /// Stores the bytes of `body` where nothing is served from, streaming them (never holding them
    /// all), and refuses them with ``FileStorageError/tooLarge(maximumBytes:)`` as soon as they pass
    /// `maximumBytes`. ``commit(_:as:contentType:metadata:)`` then serves them, or ``discard(_:)`` drops them.
    func stage<Body: AsyncSequence & Sendable>(_ body: Body, maximumBytes: Int) async throws -> StagedFile
    where Body.Element == ByteBuffer

    /// Serves the staged bytes as `name` with `contentType`, at once and whole, keeping `metadata` with them.
    func commit(_ staged: StagedFile, as name: String, contentType: String, metadata: [String: ParseValue]) async throws -> StoredFile

    /// Drops staged bytes that will not be served.
    func discard(_ staged: StagedFile) async

    /// The file `name`, or nil if there is none.
    func file(_ name: String) async throws -> StoredFile?

    /// Hands the bytes of `file` in `range` (offsets into it) to `write`, a chunk at a time.
    func read(_ file: StoredFile, range: Range<Int64>, into write: (ByteBuffer) async throws -> Void) async throws

    /// Deletes the file `name`; answers whether there was one.
    func delete(_ name: String) async throws -> Bool

    /// Every stored file.
    func all() async throws -> [StoredFile]

    /// Which of `names` are stored.
    func existing(_ names: Set<String>) async throws -> Set<String>

    /// Removes the staged uploads last written to before `date` that were neither committed nor
    /// discarded (their upload cut short by a crash); answers how many.
    @discardableResult
    func removeAbandonedUploads(olderThan date: Date) async throws -> Int
}
