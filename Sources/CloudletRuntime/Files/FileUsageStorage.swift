/// Where an app keeps the running total of the bytes its stored files take, so that an upload
/// checks the app's `files.maxTotalBytes` without walking its folder: each upload adds its size
/// and each delete takes it off; and which files its objects reference, which tells the files no
/// object holds. `SQLiteFileUsageStore` keeps it in the app's database.
public protocol FileUsageStorage: Sendable {
    /// The total, or nil while it was never counted.
    func storedFileBytes() async throws -> Int64?

    /// Starts the total at `bytes` (counted by walking the files) unless it was started already;
    /// answers the total.
    func startStoredFileBytes(at bytes: Int64) async throws -> Int64

    /// Adds `bytes` (negative for files removed) to the total, unless it would then pass `limit`
    /// (any total for nil); answers whether it did. The total never goes under 0.
    func addStoredFileBytes(_ bytes: Int64, limit: Int64?) async throws -> Bool

    /// The names of the files that `File` values of stored objects name, at any depth of their
    /// fields (what `cloudlet files prune` keeps).
    func referencedFileNames() async throws -> Set<String>
}
