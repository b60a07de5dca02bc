import Cloudlet
import CloudletServer
import Hummingbird
import NIOCore

extension HookHarness {
    /// Uploads `bytes` as a file the client calls `name`, as `POST /files/:name` does (the app's
    /// default limit of 20 MiB applies), and answers the stored file, whose name has a random prefix.
    @discardableResult
    public func upload(
        _ name: String, _ bytes: [UInt8], contentType: String? = nil, as actor: Actor = .anonymous
    ) async throws -> StoredFile {
        try await runtime.saveFile(
            named: name, contentType: contentType, body: RequestBody(buffer: ByteBuffer(bytes: bytes)),
            maximumBytes: FileSettings.defaultMaximumUploadBytes, caller: caller(actor))
    }

    /// The bytes of the stored file `name`, or nil if there is none.
    public func download(_ name: String) async throws -> [UInt8]? {
        guard let files = runtime.files, let file = try await files.file(name) else { return nil }
        var bytes: [UInt8] = []
        try await files.read(file, range: 0..<file.size) { bytes += $0.readableBytesView }
        return bytes
    }

    /// Deletes the stored file `name`, as `DELETE /files/:name` does (the master key unless told otherwise).
    public func deleteFile(_ name: String, as actor: Actor = .master) async throws {
        try await runtime.deleteFile(named: name, caller: caller(actor))
    }
}
