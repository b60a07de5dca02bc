import Cloudlet
import Synchronization

/// The push jobs a before hook records, held until the write it precedes: they are stored in that
/// write's transaction, and dropped with it when the hook throws or the write is refused.
public final class PushJobBuffer: Sendable, Hashable {
    private let jobs = Mutex<[ParseObject]>([])

    /// An empty buffer, for one before hook.
    public init() {}

    /// Holds `job` (a `_PushStatus` object with its id and timestamps) for the coming write.
    package func hold(_ job: ParseObject) {
        jobs.withLock { $0.append(job) }
    }

    /// The jobs held so far, in the order they were recorded.
    package var held: [ParseObject] {
        jobs.withLock { $0 }
    }

    public static func == (lhs: PushJobBuffer, rhs: PushJobBuffer) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
