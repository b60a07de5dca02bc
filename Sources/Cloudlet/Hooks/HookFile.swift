/// An uploaded file as file hooks see it: its name, content type, size and metadata. In
/// `beforeSaveFile`, `name` is the name the client gave (the server adds the random prefix after
/// the hook); in the other file hooks it is the stored name.
public struct HookFile: Sendable, Hashable {
    /// The file's name.
    public var name: String
    /// The content type it is served with.
    public var contentType: String
    /// Its size in bytes.
    public var size: Int64
    /// What the app keeps with the file (Parse's `metadata`); the server does not read it.
    public var metadata: [String: ParseValue]

    public init(name: String, contentType: String, size: Int64, metadata: [String: ParseValue] = [:]) {
        self.name = name
        self.contentType = contentType
        self.size = size
        self.metadata = metadata
    }

    /// The file as JSON: `{"name", "contentType", "size", "metadata"}`, as hooks receive and answer it.
    public var json: ParseValue {
        ["name": .string(name), "contentType": .string(contentType), "size": .number(Double(size)), "metadata": .object(metadata)]
    }

    /// The file in `json`; members missing or of another type read as empty.
    public init(json: ParseValue) {
        name = json["name"]?.stringValue ?? ""
        contentType = json["contentType"]?.stringValue ?? ""
        size = Int64(json["size"]?.doubleValue ?? 0)
        metadata = json["metadata"]?.objectValue ?? [:]
    }
}

/// What a file hook receives: the file being (or just) saved or deleted. A `beforeSaveFile` hook
/// may change its `name`, `contentType` and `metadata`, or throw to refuse the upload (a
/// ``HookError/validation(_:)`` answers 142); its size is the size of the bytes received.
public struct FileHookRequest: HookRequest {
    /// The file; changes a `beforeSaveFile` hook makes here are kept.
    public var file: HookFile
    /// The call's context.
    public let context: HookContext

    package init(file: HookFile, context: HookContext) {
        self.file = file
        self.context = context
    }
}
