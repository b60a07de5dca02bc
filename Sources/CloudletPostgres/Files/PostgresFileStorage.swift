import Cloudlet
import CloudletRuntime
import Crypto
import Foundation
import PostgresNIO

/// ``FileStorage`` in the app's PostgreSQL schema, as Parse Server keeps files in its database by
/// default: every node serving the app serves every file, and nothing of them is on a node's disk.
///
/// A file's bytes are rows of `file_chunks`, ``chunkBytes`` each (the last one shorter), under a
/// content id; `files` names the content served under each stored name, with its content type,
/// size, entity tag, creation time and metadata. Rows of a table, rather than large objects, since
/// they go with the app's schema when it is dropped, are in a dump of that schema alone, and need
/// no clean-up of objects no row names any more.
///
/// Bytes stream both ways and are never held whole: an upload writes a chunk as soon as it has
/// one, each in a statement of its own, so no connection waits on a slow client; a download reads a
/// chunk per query (the rows of one query would be buffered by the hundred). Chunks are stored
/// uncompressed (most uploads are compressed already), so a range reads only the parts it covers.
///
/// An upload's content id is staged in `file_stages` until it is committed: committing names the
/// content in `files` in one transaction, touching none of its chunks, so the file appears at once
/// and whole; a name stored already is refused, as on the local disk (stored names are new random
/// names, and the app's count of stored bytes counts each once). A stage no chunk was written to
/// for ``abandonedAfter`` (a node died mid-upload, or between the upload and its commit) is swept
/// by the next upload on any node, or by ``removeAbandonedUploads(olderThan:)``.
public struct PostgresFileStorage: FileStorage {
    let database: PostgresDatabase
    let schema: PostgresAppSchema

    /// The bytes of each chunk but the last of a file.
    public static let chunkBytes = 256 << 10
    /// How long a stage no chunk was written to is kept before it counts as abandoned.
    public static let abandonedAfter: TimeInterval = 60 * 60

    /// The files of the app whose schema is `schema`, made or brought up to date first.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        self.schema = schema
    }

    /// `files`, `file_chunks` and `file_stages`.
    static let migration = PostgresMigrations.Migration(
        name: "files",
        statements: [
            """
            CREATE TABLE {schema}.files (
                name text PRIMARY KEY, content uuid NOT NULL UNIQUE, content_type text NOT NULL, size bigint NOT NULL,
                etag text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), metadata text NOT NULL
            )
            """,
            "CREATE TABLE {schema}.file_chunks (content uuid NOT NULL, seq integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (content, seq))",
            // Out of line and uncompressed, so that `substring` reads only the part a range covers.
            "ALTER TABLE {schema}.file_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL",
            "CREATE TABLE {schema}.file_stages (content uuid PRIMARY KEY, touched_at timestamptz NOT NULL DEFAULT now())",
            "CREATE INDEX file_stages_touched ON {schema}.file_stages (touched_at)",
        ])

    /// The schema's table `name`, quoted for SQL text.
    func table(_ name: String) -> String { schema.quoted + "." + name }

    public func stage<Body: AsyncSequence & Sendable>(_ body: Body, maximumBytes: Int) async throws -> StagedFile
    where Body.Element == ByteBuffer {
        try await removeAbandonedUploads(olderThan: Date().addingTimeInterval(-Self.abandonedAfter))
        let content = UUID()
        var binds = PostgresBindings()
        binds.append(content)
        try await database.execute("INSERT INTO \(table("file_stages")) (content) VALUES ($1)", binds)
        let staged = StagedFile(id: content.uuidString, size: 0, etag: "")
        do {
            var size: Int64 = 0
            var hash = SHA256()
            var pending = ByteBuffer()
            pending.reserveCapacity(Self.chunkBytes)
            var seq: Int32 = 0
            for try await var piece in body {
                size += Int64(piece.readableBytes)
                guard size <= maximumBytes else { throw FileStorageError.tooLarge(maximumBytes: maximumBytes) }
                piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                while var part = piece.readSlice(length: min(piece.readableBytes, Self.chunkBytes - pending.readableBytes)), part.readableBytes > 0 {
                    pending.writeBuffer(&part)
                    if pending.readableBytes == Self.chunkBytes {
                        try await writeChunk(pending, seq: seq, of: content)
                        seq += 1
                        pending.clear()
                    }
                }
            }
            if pending.readableBytes > 0 { try await writeChunk(pending, seq: seq, of: content) }
            return StagedFile(id: staged.id, size: size, etag: StoredFile.entityTag(sha256: Array(hash.finalize())))
        } catch {
            await discard(staged)
            throw error
        }
    }

    /// Writes `bytes` as chunk `seq` of the staged `content`, marking the stage as touched; throws
    /// if the stage is gone (swept as abandoned).
    private func writeChunk(_ bytes: ByteBuffer, seq: Int32, of content: UUID) async throws {
        var binds = PostgresBindings()
        binds.append(content)
        binds.append(seq)
        binds.append(bytes)
        let sql = """
            WITH stage AS (UPDATE \(table("file_stages")) SET touched_at = now() WHERE content = $1 RETURNING content)
            INSERT INTO \(table("file_chunks")) (content, seq, bytes) SELECT content, $2, $3 FROM stage RETURNING 1
            """
        guard try await database.execute(sql, binds) == 1 else { throw PostgresFileStorageError.stageGone }
    }

    public func commit(
        _ staged: StagedFile, as name: String, contentType: String, metadata: [String: ParseValue]
    ) async throws -> StoredFile {
        guard let content = UUID(uuidString: staged.id) else { throw PostgresFileStorageError.stageGone }
        return try await database.transaction { connection in
            var stage = PostgresBindings()
            stage.append(content)
            let unstaged = try await connection.query(
                PostgresQuery(unsafeSQL: "DELETE FROM \(table("file_stages")) WHERE content = $1 RETURNING 1", binds: stage), logger: database.logger)
            guard try await unstaged.collect().count == 1 else { throw PostgresFileStorageError.stageGone }
            var binds = PostgresBindings()
            binds.append(name)
            binds.append(content)
            binds.append(contentType)
            binds.append(staged.size)
            binds.append(staged.etag)
            binds.append(JSONWriter.string(.object(metadata)))
            // A name stored already is refused, as on the local disk, and the stage kept for a discard.
            let sql = """
                INSERT INTO \(table("files")) (name, content, content_type, size, etag, metadata)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING RETURNING created_at
                """
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger).collect()
            guard let createdAt = try rows.first?.decode(Date.self) else { throw PostgresFileStorageError.nameTaken(name: name) }
            return StoredFile(
                name: name, contentType: contentType, size: staged.size, etag: staged.etag, createdAt: createdAt, metadata: metadata)
        }
    }

    public func discard(_ staged: StagedFile) async {
        guard let content = UUID(uuidString: staged.id) else { return }
        var binds = PostgresBindings()
        binds.append(content)
        _ = try? await database.execute(removing("file_stages", where: "content = $1"), binds)
    }

    /// Removes the uploads that no node committed or discarded and that no chunk was written to
    /// since `date`, with their chunks; answers how many. Every upload calls it for stages older
    /// than ``abandonedAfter`` (by this node's clock, which an hour leaves room for).
    @discardableResult
    public func removeAbandonedUploads(olderThan date: Date) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(date)
        return try await database.execute(removing("file_stages", where: "touched_at < $1"), binds)
    }

    /// One statement that deletes the rows of `table` (`files` or `file_stages`) that `condition`
    /// selects with their chunks, and gives a row for each.
    func removing(_ table: String, where condition: String) -> String {
        """
        WITH removed AS (DELETE FROM \(self.table(table)) WHERE \(condition) RETURNING content),
        chunks AS (DELETE FROM \(self.table("file_chunks")) WHERE content IN (SELECT content FROM removed))
        SELECT 1 FROM removed
        """
    }
}

/// Why the PostgreSQL file storage could not do what it was asked.
public enum PostgresFileStorageError: Error, Sendable, Equatable {
    /// The staged upload is gone: committed or discarded already, or swept as abandoned.
    case stageGone
    /// A file is stored under the name already.
    case nameTaken(name: String)
    /// The file's bytes are gone: it was deleted or replaced while being read.
    case contentGone(name: String)
}
