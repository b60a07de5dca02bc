/// The content type of an upload sent without one, from its name's extension, as Parse Server
/// guesses it; `application/octet-stream` for any other.
enum FileContentType {
    static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "svg": "image/svg+xml", "txt": "text/plain", "html": "text/html", "css": "text/css",
        "csv": "text/csv", "json": "application/json", "pdf": "application/pdf", "zip": "application/zip",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "mp4": "video/mp4", "mov": "video/quicktime",
    ]

    /// The type for `name`'s extension.
    static func guess(forName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
