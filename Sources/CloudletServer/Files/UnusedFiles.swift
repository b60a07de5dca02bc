import CloudletRuntime
import Foundation

/// The files of an app that no object references: what `cloudlet files prune` removes.
public enum UnusedFiles {
    /// The files in `files` stored before `date` whose names no object of `usage`'s app holds in a
    /// `File` value, by name. With `remove`, they are deleted (as are uploads a crash cut short
    /// before `date`, and the app's count of stored bytes goes down by theirs); answers them either way.
    public static func prune(
        _ files: any FileStorage, usage: any FileUsageStorage, storedBefore date: Date, remove: Bool
    ) async throws -> [StoredFile] {
        let referenced = try await usage.referencedFileNames()
        let unused = try await files.all().filter { $0.createdAt < date && !referenced.contains($0.name) }
        guard remove else { return unused }
        var removed: [StoredFile] = []
        for file in unused where try await files.delete(file.name) { removed.append(file) }
        try await files.removeAbandonedUploads(olderThan: date)
        if try await usage.storedFileBytes() != nil {
            _ = try await usage.addStoredFileBytes(-removed.reduce(0) { $0 + $1.size }, limit: nil)
        }
        return removed
    }
}
