import Cloudlet

/// The installations a push job goes to: those matching the job's query that have a device token,
/// read in pages in `objectId` order, so that a fan-out of any size holds one page in memory and
/// resumes after the last installation it finished.
public struct PushRecipients: Sendable {
    /// Installations read at a time.
    public static let defaultPageSize = 1_000

    /// The app's storage.
    public let storage: any ObjectStorage
    /// The job's `where` on `_Installation`.
    public let query: [String: ParseValue]

    public init(storage: any ObjectStorage, query: [String: ParseValue]) {
        self.storage = storage
        self.query = query
    }

    /// The next `limit` recipients whose `objectId` sorts after `cursor` (from the first with nil).
    /// Throws the query's Parse error (102, …) for a query that cannot run.
    public func page(after cursor: String?, limit: Int = defaultPageSize) async throws -> [ParseObject] {
        try await storage.find(StorageQuery(query: pageQuery(after: cursor, limit: limit), readerIdentities: nil))
    }

    /// The query of the page ``page(after:limit:)`` reads: the job's `where`, a device token, an
    /// `objectId` after `cursor`, in `objectId` order, at most `limit` and at most the 1,000 one
    /// query returns (its `limit` says how many: a page with fewer is the last).
    public func pageQuery(after cursor: String?, limit: Int = defaultPageSize) -> ParseQuery {
        Self.pageQuery(query, after: cursor, limit: limit)
    }

    /// The query of a page of the recipients of a job whose `where` is `query` (see ``pageQuery(after:limit:)``).
    public static func pageQuery(_ query: [String: ParseValue], after cursor: String?, limit: Int = defaultPageSize) -> ParseQuery {
        var terms: [ParseValue] = [.object(query), ["deviceToken": ["$exists": true]]]
        if let cursor { terms.append(["objectId": ["$gt": .string(cursor)]]) }
        return ParseQuery(
            "_Installation", constraints: ["$and": .array(terms)], order: ["objectId"], limit: min(limit, StorageQuery.maximumLimit))
    }
}
