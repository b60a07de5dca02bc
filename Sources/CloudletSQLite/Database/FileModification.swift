import Foundation

/// A file's modification time with one `stat` call: cheap enough to look at every app's database
/// files every few seconds.
enum FileModification {
    /// When the file at `path` was last modified; nil if it cannot be read.
    static func time(of path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
