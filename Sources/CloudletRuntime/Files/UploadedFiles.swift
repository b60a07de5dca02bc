import Cloudlet
import NIOCore

/// An app's uploaded files: stores uploads (bounded by the app's limits and the host's free-disk
/// floor, see ``FileUsage``), serves and deletes them with their hooks, and checks that the files
/// an object names exist.
public struct UploadedFiles: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Stores an upload named `name` by the client (checked with ``FileName/uploaded(_:)``) from
    /// the bytes of `body`, streamed to the app's file storage and refused with 413/130 past
    /// `maximumBytes`, or once the app's files would take more than `maximumTotalBytes` or the
    /// disk's free space would fall under the host's floor (``FileUsage/UploadRoom``; a body declared as
    /// `expectedBytes` long is refused before it is read). Its content type is `contentType`, or
    /// else guessed from the name's extension; it and `metadata` are bounded (400/130, see
    /// ``StoredFile/checkDescription(contentType:metadata:)``). Once the bytes are in, the
    /// `beforeSaveFile` hook may rename the file, change its content type or metadata, or refuse it
    /// (nothing is then kept); `afterSaveFile` runs once it is served (its failure is logged, never
    /// the upload's). Answers the stored file, whose name has a random prefix.
    public func save<Body: AsyncSequence & Sendable>(
        named name: String, contentType: String?, metadata: [String: ParseValue] = [:], body: Body, maximumBytes: Int,
        maximumTotalBytes: Int64? = nil, expectedBytes: Int? = nil, caller: Caller
    ) async throws -> StoredFile where Body.Element == ByteBuffer {
        let files = try requireFiles()
        let name = try FileName.uploaded(name)
        try StoredFile.checkDescription(contentType: contentType, metadata: metadata)
        let usage = FileUsage(app)
        let room = try await usage.uploadRoom(maximumTotalBytes: maximumTotalBytes)
        if let room, let expectedBytes, Int64(expectedBytes) > room.bytes { throw room.exceeded }
        let staged: StagedFile
        do {
            staged = try await files.stage(body, maximumBytes: room.map { Int(min(Int64(maximumBytes), $0.bytes)) } ?? maximumBytes)
        } catch FileStorageError.tooLarge {
            if let room, room.bytes < maximumBytes { throw room.exceeded }
            throw ParseError(code: 130, message: "the file is larger than the app's limit of \(maximumBytes) bytes", httpStatus: 413)
        }
        let stored: StoredFile
        do {
            let type = contentType.flatMap { $0.isEmpty ? nil : $0 } ?? FileContentType.guess(forName: name)
            var file = HookFile(name: name, contentType: type, size: staged.size, metadata: metadata)
            let hooks = HookRunner(app)
            if let beforeSaveFile = hooks.hook(.beforeSaveFile, "") {
                file = HookFile(json: try await hooks.run(beforeSaveFile, input: HookPayload(file.json), caller: caller))
                file.name = try FileName.uploaded(file.name)
                if file.contentType.isEmpty { file.contentType = type }
                try StoredFile.checkDescription(contentType: file.contentType, metadata: file.metadata)
            }
            try await usage.reserve(staged.size, maximumTotalBytes: maximumTotalBytes)
            do {
                stored = try await files.commit(
                    staged, as: FileName.stored(for: file.name), contentType: file.contentType, metadata: file.metadata)
            } catch {
                await usage.release(staged.size)
                throw error
            }
        } catch {
            await files.discard(staged)
            throw error
        }
        await runAfterFileHook(.afterSaveFile, stored, caller: caller)
        return stored
    }

    /// Deletes the stored file `name` (a name the server made): the master key only (119), and 404
    /// with code 153 when there is no such file. `beforeDeleteFile` may refuse it; `afterDeleteFile`
    /// runs once it is gone (its failure is logged, never the delete's).
    public func delete(named name: String, caller: Caller) async throws {
        guard caller.isMaster else {
            throw ParseError.masterKeyRequired
        }
        let files = try requireFiles()
        let name = try FileName.storedName(name)
        let notFound = ParseError(code: 153, message: "Could not delete file: there is no file \(name).", httpStatus: 404)
        guard let file = try await files.file(name) else { throw notFound }
        let hooks = HookRunner(app)
        if let beforeDeleteFile = hooks.hook(.beforeDeleteFile, "") {
            _ = try await hooks.run(beforeDeleteFile, input: HookPayload(file.hookFile.json), caller: caller)
        }
        guard try await files.delete(name) else { throw notFound }
        await FileUsage(app).release(file.size)
        await runAfterFileHook(.afterDeleteFile, file, caller: caller)
    }

    /// Runs the after hook of `kind` on `file`, if the app has one; its failure is logged (and kept in
    /// the hook log) but does not fail the upload or delete, which has happened.
    private func runAfterFileHook(_ kind: HookKind, _ file: StoredFile, caller: Caller) async {
        let hooks = HookRunner(app)
        guard let afterHook = hooks.hook(kind, "") else { return }
        do {
            _ = try await hooks.run(afterHook, input: HookPayload(file.hookFile.json), caller: caller)
        } catch {
            app.logger.warning("\(kind.rawValue) hook failed", metadata: ["file": "\(file.name)", "error": "\(error)"])
        }
    }

    /// The stored file `name` (a name from a URL, checked with ``FileName/storedName(_:)``), or 404
    /// with code 101.
    public func file(named name: String) async throws -> StoredFile {
        let name = try FileName.storedName(name)
        guard let file = try await requireFiles().file(name) else {
            throw ParseError(code: 101, message: "File not found.", httpStatus: 404)
        }
        return file
    }

    /// Refuses (111) `values` when a `File` among them — at any depth — names a file the app does
    /// not store. Values without a `File` cost one walk and no storage call.
    func checkExist(in values: some Sequence<ParseValue>) async throws {
        guard let files = app.fileStorage else { return }
        var names: Set<String> = []
        for value in values { value.collectFileNames(into: &names) }
        guard !names.isEmpty else { return }
        let found = try await files.existing(names)
        if let missing = names.subtracting(found).sorted().first {
            throw ParseError.incorrectType("the file \(missing) does not exist; upload it with POST /files/:name first")
        }
    }

    /// The values a write sets or adds, for ``checkExist(in:)``.
    static func writtenValues(_ changes: ObjectChanges) -> [ParseValue] {
        changes.fields.values.flatMap { change -> [ParseValue] in
            switch change {
            case .set(let value): [value]
            case .operation(.add(let values)), .operation(.addUnique(let values)): values
            case .operation: []
            }
        }
    }

    private func requireFiles() throws -> any FileStorage {
        guard let files = app.fileStorage else { throw ParseError(code: 130, message: "this app stores no files", httpStatus: 400) }
        return files
    }
}

extension ParseValue {
    /// Adds the names of the `File` values in this value, at any depth, to `names`.
    func collectFileNames(into names: inout Set<String>) {
        switch self {
        case .array(let elements):
            for element in elements { element.collectFileNames(into: &names) }
        case .object(let members):
            if members["__type"] == "File", let name = members["name"]?.stringValue {
                names.insert(name)
            } else {
                for member in members.values { member.collectFileNames(into: &names) }
            }
        default:
            break
        }
    }
}
