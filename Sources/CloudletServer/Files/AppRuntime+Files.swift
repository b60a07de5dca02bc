import Cloudlet
import NIOCore

extension AppRuntime {
    /// Stores an upload named `name` by the client (checked with ``FileName/uploaded(_:)``) from
    /// the bytes of `body`, streamed to the app's file storage and refused with 413/130 past
    /// `maximumBytes`; its content type is `contentType`, or else guessed from the name's extension.
    /// Answers the stored file, whose name has a random prefix.
    public func saveFile<Body: AsyncSequence & Sendable>(
        named name: String, contentType: String?, body: Body, maximumBytes: Int, caller: Caller
    ) async throws -> StoredFile where Body.Element == ByteBuffer {
        let files = try requireFiles()
        let name = try FileName.uploaded(name)
        let staged: StagedFile
        do {
            staged = try await files.stage(body, maximumBytes: maximumBytes)
        } catch FileStorageError.tooLarge(let limit) {
            throw ParseError(code: 130, message: "the file is larger than the app's limit of \(limit) bytes", httpStatus: 413)
        }
        do {
            let type = contentType.flatMap { $0.isEmpty ? nil : $0 } ?? FileContentType.guess(forName: name)
            return try await files.commit(staged, as: FileName.stored(for: name), contentType: type, metadata: [:])
        } catch {
            await files.discard(staged)
            throw error
        }
    }

    /// Deletes the stored file `name` (a name the server made): the master key only (119), and 404
    /// with code 153 when there is no such file.
    public func deleteFile(named name: String, caller: Caller) async throws {
        guard caller.isMaster else {
            throw ParseError(code: 119, message: "unauthorized: master key is required", httpStatus: 403)
        }
        let files = try requireFiles()
        let name = try FileName.storedName(name)
        guard try await files.delete(name) else {
            throw ParseError(code: 153, message: "Could not delete file: there is no file \(name).", httpStatus: 404)
        }
    }

    /// The stored file `name` (a name from a URL, checked with ``FileName/storedName(_:)``), or 404
    /// with code 101.
    public func storedFile(named name: String) async throws -> StoredFile {
        let name = try FileName.storedName(name)
        guard let file = try await requireFiles().file(name) else {
            throw ParseError(code: 101, message: "File not found.", httpStatus: 404)
        }
        return file
    }

    /// Refuses (111) `values` when a `File` among them — at any depth — names a file the app does
    /// not store. Values without a `File` cost one walk and no storage call.
    func checkFilesExist(in values: some Sequence<ParseValue>) async throws {
        guard let files else { return }
        var names: Set<String> = []
        for value in values { value.collectFileNames(into: &names) }
        guard !names.isEmpty else { return }
        let found = try await files.existing(names)
        if let missing = names.subtracting(found).sorted().first {
            throw ParseError.incorrectType("the file \(missing) does not exist; upload it with POST /files/:name first")
        }
    }

    /// The values a write sets or adds, for ``checkFilesExist(in:)``.
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
        guard let files else { throw ParseError(code: 130, message: "this app stores no files", httpStatus: 400) }
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
