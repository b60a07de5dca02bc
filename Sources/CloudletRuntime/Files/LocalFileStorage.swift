import Cloudlet
import Foundation
import NIOCore
import NIOFileSystem

/// ``FileStorage`` in a folder on the local disk, by default `data/apps/<app>/files/`: each file's
/// bytes under its stored name, its content type, entity tag, time and metadata in `.meta/<name>` (JSON).
///
/// An upload is written to `.uploads/<uuid>` and, once every byte is on disk, renamed into place
/// (its metadata first, then the bytes), so a crash never leaves half a file under a served name;
/// what a crash leaves in `.uploads` is removed by ``removeAbandonedUploads(olderThan:)``.
public struct LocalFileStorage: FileStorage {
    /// The folder.
    public let folder: FilePath
    private let fileSystem = FileSystem.shared
    /// The SHA-256 that tags uploads.
    private let contentHash: any IncrementalSHA256.Type

    /// The storage in `folder`, created (with its `.meta` and `.uploads` folders) if needed.
    public init(folder: String) throws {
        try self.init(folder: folder, contentHash: SHA256Hasher.self)
    }

    /// The storage in `folder`, tagging uploads with the SHA-256 of `contentHash`.
    package init(folder: String, contentHash: any IncrementalSHA256.Type) throws {
        self.folder = FilePath(folder)
        self.contentHash = contentHash
        for sub in [".meta", ".uploads"] {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: folder).appendingPathComponent(sub).path, withIntermediateDirectories: true)
        }
    }

    /// The storage of app `appId` in the data folder `dataDirectory`: `apps/<app>/files`.
    public init(dataDirectory: String, appId: String) throws {
        try self.init(dataDirectory: dataDirectory, appId: appId, contentHash: SHA256Hasher.self)
    }

    /// The storage of app `appId` in `dataDirectory`, tagging uploads with the SHA-256 of `contentHash`.
    package init(dataDirectory: String, appId: String, contentHash: any IncrementalSHA256.Type) throws {
        try self.init(
            folder: URL(fileURLWithPath: dataDirectory).appendingPathComponent("apps/\(appId)/files").path, contentHash: contentHash)
    }

    public func stage<Body: AsyncSequence & Sendable>(_ body: Body, maximumBytes: Int) async throws -> StagedFile
    where Body.Element == ByteBuffer {
        let id = UUID().uuidString
        let upload = uploadPath(id)
        var size: Int64 = 0
        var hash = contentHash.init()
        do {
            try await fileSystem.withFileHandle(forWritingAt: upload, options: .newFile(replaceExisting: false)) { handle in
                try await handle.withBufferedWriter(capacity: .kibibytes(256)) { writer in
                    for try await chunk in body {
                        size += Int64(chunk.readableBytes)
                        guard size <= maximumBytes else { throw FileStorageError.tooLarge(maximumBytes: maximumBytes) }
                        chunk.withUnsafeReadableBytes { hash.update($0) }
                        _ = try await writer.write(contentsOf: chunk)
                    }
                }
            }
        } catch {
            _ = try? await fileSystem.removeItem(at: upload, recursively: false)
            throw error
        }
        return StagedFile(id: id, size: size, etag: StoredFile.entityTag(sha256: hash.digestBytes()))
    }

    public func commit(
        _ staged: StagedFile, as name: String, contentType: String, metadata: [String: ParseValue]
    ) async throws -> StoredFile {
        let file = StoredFile(
            name: name, contentType: contentType, size: staged.size, etag: staged.etag, createdAt: Date(), metadata: metadata)
        let meta = uploadPath(staged.id + ".meta")
        do {
            try await ByteBuffer(bytes: JSONWriter.bytes(Self.metadata(of: file))).write(toFileAt: meta, fileSystem: fileSystem)
            try await fileSystem.moveItem(at: meta, to: metadataPath(name))
            try await fileSystem.moveItem(at: uploadPath(staged.id), to: folder.appending(name))
        } catch {
            _ = try? await fileSystem.removeItem(at: meta, recursively: false)
            throw error
        }
        return file
    }

    public func discard(_ staged: StagedFile) async {
        _ = try? await fileSystem.removeItem(at: uploadPath(staged.id), recursively: false)
    }

    public func file(_ name: String) async throws -> StoredFile? {
        guard let info = try await fileSystem.info(forFileAt: folder.appending(name)), info.type == .regular else { return nil }
        let modified = Date(timeIntervalSince1970: Double(info.lastDataModificationTime.seconds))
        var file = StoredFile(
            name: name, contentType: "application/octet-stream", size: info.size,
            etag: "\"\(info.size)-\(info.lastDataModificationTime.seconds)\"", createdAt: modified)
        // Room for the largest metadata and content type an upload may keep, with the tag and time.
        let metaBytes = Int64(2 * (StoredFile.maximumMetadataBytes + StoredFile.maximumContentTypeBytes))
        if let meta = try? await ByteBuffer(contentsOf: metadataPath(name), maximumSizeAllowed: .bytes(metaBytes), fileSystem: fileSystem),
            let members = try? JSONParser.parse(Array(meta.readableBytesView)).objectValue
        {
            file.contentType = members["contentType"]?.stringValue ?? file.contentType
            file.etag = members["etag"]?.stringValue ?? file.etag
            file.createdAt = members["createdAt"]?.dateValue ?? file.createdAt
            file.metadata = members["metadata"]?.objectValue ?? [:]
        }
        return file
    }

    public func read(_ file: StoredFile, range: Range<Int64>, into write: (ByteBuffer) async throws -> Void) async throws {
        guard !range.isEmpty else { return }
        try await fileSystem.withFileHandle(forReadingAt: folder.appending(file.name)) { handle in
            for try await chunk in handle.readChunks(in: range, chunkLength: .kibibytes(128)) {
                try await write(chunk)
            }
        }
    }

    public func delete(_ name: String) async throws -> Bool {
        let removed = try await fileSystem.removeItem(at: folder.appending(name), recursively: false)
        _ = try await fileSystem.removeItem(at: metadataPath(name), recursively: false)
        return removed > 0
    }

    public func all() async throws -> [StoredFile] {
        var files: [StoredFile] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.string) where FileName.isStoredName(name) {
            if let file = try await file(name) { files.append(file) }
        }
        return files.sorted { $0.name < $1.name }
    }

    public func existing(_ names: Set<String>) async throws -> Set<String> {
        var found: Set<String> = []
        for name in names where FileName.isStoredName(name) {
            if try await fileSystem.info(forFileAt: folder.appending(name))?.type == .regular { found.insert(name) }
        }
        return found
    }

    /// Removes what uploads cut short by a crash left in `.uploads`, last written before `date`;
    /// answers how many. The server calls it as it starts serving the app, `cloudlet files prune` too.
    @discardableResult
    public func removeAbandonedUploads(olderThan date: Date) throws -> Int {
        let uploads = URL(fileURLWithPath: folder.appending(".uploads").string)
        var removed = 0
        for path in try FileManager.default.contentsOfDirectory(at: uploads, includingPropertiesForKeys: [.contentModificationDateKey]) {
            guard let modified = try path.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, modified < date
            else { continue }
            try FileManager.default.removeItem(at: path)
            removed += 1
        }
        return removed
    }

    private func uploadPath(_ id: String) -> FilePath {
        folder.appending([".uploads", .init(id)!])
    }

    private func metadataPath(_ name: String) -> FilePath {
        folder.appending([".meta", .init(name)!])
    }

    private static func metadata(of file: StoredFile) -> ParseValue {
        [
            "contentType": .string(file.contentType), "etag": .string(file.etag), "createdAt": .string(ParseDate.string(from: file.createdAt)),
            "metadata": .object(file.metadata),
        ]
    }
}
