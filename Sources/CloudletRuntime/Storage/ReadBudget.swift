import Cloudlet
import Synchronization

/// What one request may make the server build: bytes of objects read from storage or copied into
/// the answer by `include`, and objects fetched by `include`. Every read of the request charges
/// it as it goes (the operations of a batch share one), so that a read past a bound stops there,
/// before the answer is built, and answers 154 (HTTP 400).
///
/// ```swift
/// let budget = ReadBudget(maximumBytes: 16 << 20)
/// let objects = try await runtime.reads.find(query, caller: caller, budget: budget)
/// ```
public final class ReadBudget: Sendable {
    /// The default bound on one response: 16 MiB.
    public static let defaultMaximumBytes = 16 << 20
    /// The most objects `include` may fetch for one request.
    public static let maximumIncludedObjects = 10_000
    /// The most pointers deep an `include` path may go (`a.b.c.d.e`).
    public static let maximumIncludeDepth = 5
    /// What an object costs beyond its stored fields and ACL: its id, dates and their names.
    static let objectOverhead = 128

    /// The most bytes the request may read and copy.
    public let maximumBytes: Int
    private let used = Mutex<(bytes: Int, included: Int)>((0, 0))

    public init(maximumBytes: Int = defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The error every over-budget read answers.
    package var exceeded: ParseError {
        ParseError(
            code: 154, message: "the response would be larger than \(maximumBytes) bytes: ask for fewer objects, keys or includes")
    }

    /// Counts `bytes` read or copied; throws 154 once the total passes ``maximumBytes``.
    package func charge(bytes: Int) throws(ParseError) {
        let total = used.withLock { used in
            used.bytes += bytes
            return used.bytes
        }
        guard total <= maximumBytes else { throw exceeded }
    }

    /// Counts `count` objects fetched by `include`; throws 154 past ``maximumIncludedObjects``.
    func chargeIncluded(_ count: Int) throws(ParseError) {
        let total = used.withLock { used in
            used.included += count
            return used.included
        }
        guard total <= Self.maximumIncludedObjects else {
            throw ParseError(code: 154, message: "include may fetch at most \(Self.maximumIncludedObjects) objects per request")
        }
    }

    /// What an object stored as `data` and `acl` costs to read.
    package static func storedSize(data: String, acl: String?) -> Int {
        data.utf8.count + (acl?.utf8.count ?? 0) + objectOverhead
    }
}
