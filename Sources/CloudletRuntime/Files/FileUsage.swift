import Cloudlet

/// The bytes an app's files take: kept as a running total in its database, bounded by the app's
/// `files.maxTotalBytes` and by the host's free-disk floor.
struct FileUsage {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// What an upload may still store: the room left under the app's `files.maxTotalBytes` or above
    /// the host's free-disk floor, whichever is less, and the refusal once it is passed.
    struct UploadRoom: Sendable {
        /// The bytes the upload may take.
        var bytes: Int64
        /// The refusal (413/130) for an upload that takes more.
        var exceeded: ParseError
    }

    /// The room an upload has now; nil for no bound; 413/130 when there is none left.
    func uploadRoom(maximumTotalBytes: Int64?) async throws -> UploadRoom? {
        var bounds: [UploadRoom] = []
        if let maximumTotalBytes {
            bounds.append(UploadRoom(bytes: maximumTotalBytes - (try await storedBytes()), exceeded: Self.overTotal(maximumTotalBytes)))
        }
        if let floor = app.limits.freeDiskFloor, let aboveFloor = floor.roomAboveFloor() {
            let refusal = Self.uploadRefused("the server keeps the last \(floor.floorBytes) bytes of its disk free")
            bounds.append(UploadRoom(bytes: aboveFloor, exceeded: refusal))
        }
        guard let tightest = bounds.min(by: { $0.bytes < $1.bytes }) else { return nil }
        if tightest.bytes <= 0 { throw tightest.exceeded }
        return tightest
    }

    /// Counts `bytes` more as stored, unless the app's files would then take more than
    /// `maximumTotalBytes` (413/130).
    func reserve(_ bytes: Int64, maximumTotalBytes: Int64?) async throws {
        _ = try await storedBytes()
        guard try await app.stores.fileUsage.addStoredFileBytes(bytes, limit: maximumTotalBytes) else {
            throw Self.overTotal(maximumTotalBytes ?? 0)
        }
    }

    /// Counts `bytes` fewer as stored (a file deleted, or an upload that reserved them and failed).
    func release(_ bytes: Int64) async {
        do {
            _ = try await storedBytes()
            _ = try await app.stores.fileUsage.addStoredFileBytes(-bytes, limit: nil)
        } catch {
            app.logger.error("could not count a file's bytes as freed", metadata: ["bytes": "\(bytes)", "error": "\(error)"])
        }
    }

    /// The bytes the app's files take: the running total in its database, counted once by walking
    /// its files when it never was (an app stored before the total was kept).
    func storedBytes() async throws -> Int64 {
        let usage = app.stores.fileUsage
        if let total = try await usage.storedFileBytes() { return total }
        let counted = try await app.fileStorage?.all().reduce(0) { $0 + $1.size } ?? 0
        return try await usage.startStoredFileBytes(at: counted)
    }

    private static func overTotal(_ maximumTotalBytes: Int64) -> ParseError {
        uploadRefused("the app's files would take more than its bound of \(maximumTotalBytes) bytes (files.maxTotalBytes)")
    }

    private static func uploadRefused(_ reason: String) -> ParseError {
        ParseError(code: 130, message: "File upload refused: \(reason).", httpStatus: 413)
    }
}
