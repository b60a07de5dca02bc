import Cloudlet
import CloudletRuntime
import NIOCore

extension HookHarness {
    /// Uploads `bytes` as a file the client calls `name`, as `POST /files/:name` does (the app's
    /// default limit of 20 MiB applies), and answers the stored file, whose name has a random prefix.
    @discardableResult
    public func upload(
        _ name: String, _ bytes: [UInt8], contentType: String? = nil, as actor: Actor = .anonymous
    ) async throws -> StoredFile {
        try await runtime.files.save(
            named: name, contentType: contentType, body: Self.body(bytes),
            maximumBytes: UploadLimits.defaultMaximumBytes, caller: caller(actor))
    }

    /// `bytes` as an upload's body: one buffer, then the end.
    private static func body(_ bytes: [UInt8]) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            continuation.yield(ByteBuffer(bytes: bytes))
            continuation.finish()
        }
    }

    /// The bytes of the stored file `name`, or nil if there is none.
    public func download(_ name: String) async throws -> [UInt8]? {
        guard let files = runtime.context.fileStorage, let file = try await files.file(name) else { return nil }
        var bytes: [UInt8] = []
        try await files.read(file, range: 0..<file.size) { bytes += $0.readableBytesView }
        return bytes
    }

    /// Deletes the stored file `name`, as `DELETE /files/:name` does (the master key unless told otherwise).
    public func deleteFile(_ name: String, as actor: Actor = .master) async throws {
        try await runtime.files.delete(named: name, caller: caller(actor))
    }
}
