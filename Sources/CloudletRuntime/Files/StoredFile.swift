import Cloudlet
import Foundation

/// What the server knows of one stored file: its stored name, content type, size, entity tag, when
/// it was stored, and the app's metadata.
public struct StoredFile: Sendable, Hashable {
    /// The stored name: `<random prefix>_<the client's name>`.
    public var name: String
    /// The content type it is served with.
    public var contentType: String
    /// Its size in bytes.
    public var size: Int64
    /// A strong entity tag: the first 128 bits of the bytes' SHA-256, in hex, quoted (see ``entityTag(sha256:)``).
    public var etag: String
    /// When it was stored.
    public var createdAt: Date
    /// What the app keeps with the file (set by a `beforeSaveFile` hook).
    public var metadata: [String: ParseValue]

    public init(name: String, contentType: String, size: Int64, etag: String, createdAt: Date, metadata: [String: ParseValue] = [:]) {
        self.name = name
        self.contentType = contentType
        self.size = size
        self.etag = etag
        self.createdAt = createdAt
        self.metadata = metadata
    }

    /// The entity tag of bytes whose SHA-256 is `digest`: its first 128 bits in hex, quoted.
    package static func entityTag(sha256 digest: [UInt8]) -> String {
        "\"" + SHA256Hasher.Digest(bytes: Array(digest.prefix(16))).hex + "\""
    }

    /// The most bytes a file's metadata may take, as JSON.
    public static let maximumMetadataBytes = 8 << 10
    /// The most bytes a file's content type may take.
    public static let maximumContentTypeBytes = 255

    /// Throws 400 with code 130 when `metadata` takes more than ``maximumMetadataBytes`` as JSON, or
    /// `contentType` more than ``maximumContentTypeBytes`` or a byte a header cannot carry: nothing
    /// past them could be kept with the file and read back.
    public static func checkDescription(contentType: String?, metadata: [String: ParseValue]) throws(ParseError) {
        if let contentType {
            guard contentType.utf8.count <= maximumContentTypeBytes, contentType.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw ParseError(
                    code: 130, message: "Invalid file upload: a content type is at most \(maximumContentTypeBytes) printable ASCII bytes.",
                    httpStatus: 400)
            }
        }
        guard !metadata.isEmpty else { return }
        let size = JSONWriter.bytes(.object(metadata)).count
        guard size <= maximumMetadataBytes else {
            throw ParseError(
                code: 130, message: "Invalid file upload: its metadata takes \(size) bytes as JSON, more than \(maximumMetadataBytes).",
                httpStatus: 400)
        }
    }

    /// The file as file hooks see it.
    public var hookFile: HookFile {
        HookFile(name: name, contentType: contentType, size: size, metadata: metadata)
    }
}

/// Bytes of an upload, stored but not served yet: see ``FileStorage/stage(_:maximumBytes:)``.
public struct StagedFile: Sendable, Hashable {
    /// The storage's own name for the staged bytes.
    public var id: String
    /// How many bytes there are.
    public var size: Int64
    /// Their entity tag (see ``StoredFile/etag``).
    public var etag: String

    public init(id: String, size: Int64, etag: String) {
        self.id = id
        self.size = size
        self.etag = etag
    }
}

/// Why a file could not be stored.
public enum FileStorageError: Error, Sendable, Equatable {
    /// The bytes went past the largest upload the app takes.
    case tooLarge(maximumBytes: Int)
}
