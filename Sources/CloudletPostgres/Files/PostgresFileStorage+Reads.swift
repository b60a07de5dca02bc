import Cloudlet
import CloudletRuntime
import Foundation
import PostgresNIO

extension PostgresFileStorage {
    /// The columns a file is read from, in order.
    private static let columns = "name, content_type, size, etag, created_at, metadata"

    public func file(_ name: String) async throws -> StoredFile? {
        var binds = PostgresBindings()
        binds.append(name)
        return try await files(where: "name = $1", binds).first
    }

    /// Reads chunk by chunk, a query each, from the content stored under the file's name with its
    /// entity tag; throws ``PostgresFileStorageError/contentGone(name:)`` if there is none or a
    /// chunk is missing (the file was deleted meanwhile, or deleted and stored again): its bytes are never mixed
    /// with another's.
    public func read(_ file: StoredFile, range: Range<Int64>, into write: (ByteBuffer) async throws -> Void) async throws {
        guard !range.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(file.name)
        binds.append(file.etag)
        let rows = try await database.client.query(
            PostgresQuery(unsafeSQL: "SELECT content FROM \(table("files")) WHERE name = $1 AND etag = $2", binds: binds), logger: database.logger)
        guard let content = try await rows.collect().first?.decode(UUID.self) else { throw PostgresFileStorageError.contentGone(name: file.name) }
        let chunkBytes = Int64(Self.chunkBytes)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = offset % chunkBytes
            let length = min(chunkBytes - start, range.upperBound - offset)
            var chunk = PostgresBindings()
            chunk.append(content)
            chunk.append(Int32(offset / chunkBytes))
            chunk.append(start + 1)
            chunk.append(length)
            let bytes = try await database.client.query(
                PostgresQuery(
                    unsafeSQL: "SELECT substring(bytes FROM $3::integer FOR $4::integer) FROM \(table("file_chunks")) WHERE content = $1 AND seq = $2",
                    binds: chunk),
                logger: database.logger
            ).collect().first?.decode(ByteBuffer.self)
            guard let bytes, bytes.readableBytes == length else { throw PostgresFileStorageError.contentGone(name: file.name) }
            try await write(bytes)
            offset += length
        }
    }

    public func delete(_ name: String) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(name)
        return try await database.execute(removing("files", where: "name = $1"), binds) > 0
    }

    public func all() async throws -> [StoredFile] {
        try await files(where: "true", PostgresBindings())
    }

    public func existing(_ names: Set<String>) async throws -> Set<String> {
        guard !names.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(Array(names))
        let rows = try await database.client.query(
            PostgresQuery(unsafeSQL: "SELECT name FROM \(table("files")) WHERE name = ANY($1)", binds: binds), logger: database.logger)
        var found: Set<String> = []
        for try await name in rows.decode(String.self) { found.insert(name) }
        return found
    }

    /// The files that `condition` (with `binds`) selects, by name.
    private func files(where condition: String, _ binds: PostgresBindings) async throws -> [StoredFile] {
        let sql = #"SELECT \#(Self.columns) FROM \#(table("files")) WHERE \#(condition) ORDER BY name COLLATE "C""#
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger)
        var found: [StoredFile] = []
        for try await (name, contentType, size, etag, createdAt, metadata) in rows.decode((String, String, Int64, String, Date, String).self) {
            found.append(
                StoredFile(
                    name: name, contentType: contentType, size: size, etag: etag, createdAt: createdAt,
                    metadata: try JSONParser.parse(metadata).objectValue ?? [:]))
        }
        return found
    }
}
