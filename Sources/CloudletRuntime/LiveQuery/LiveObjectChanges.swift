import Cloudlet
import Synchronization

/// A committed write of an object of a class that publishes live events (LiveQuery): what the
/// object is now and what it was before, as the store committed them.
public struct CommittedObjectChange: Sendable, Equatable {
    /// What the write did.
    public enum Kind: String, Sendable {
        /// A new object (`original` is nil).
        case create
        /// A changed object (`original` is the object before).
        case update
        /// A deleted object (`object` is the object as it was).
        case delete
    }

    public let kind: Kind
    /// The object as written, or as it was for a delete.
    public let object: ParseObject
    /// For an update, the object before it.
    public let original: ParseObject?

    public init(kind: Kind, object: ParseObject, original: ParseObject?) {
        self.kind = kind
        self.object = object
        self.original = original
    }
}

/// One app's feed of committed object writes for LiveQuery: the stores publish each committed
/// write of a class in ``classNames`` (after its commit, in commit order; nothing for a write that
/// rolled back), and every node's LiveQuery server subscribes. On SQLite the writer publishes after
/// its commit; on PostgreSQL every node publishes what it hears of any node's commits.
public final class LiveObjectChanges: Sendable {
    private let subscribers = WeakSubscribers<CommittedObjectChange>()
    private let classes = Mutex<Set<String>>([])

    public init() {}

    /// The classes whose writes are published (the app's `liveQuery.classNames`); changeable while
    /// the app is served.
    public var classNames: Set<String> {
        get { classes.withLock { $0 } }
        set { classes.withLock { $0 = newValue } }
    }

    /// Whether writes of `className` are published: the stores ask before they make a change.
    public func publishes(_ className: String) -> Bool {
        classes.withLock { $0.contains(className) }
    }

    /// Calls `apply` with `owner` for every change from now on, for as long as `owner` lives;
    /// subscribing the same owner again replaces its first subscription.
    public func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ apply: @escaping @Sendable (Owner, CommittedObjectChange) -> Void) {
        subscribers.subscribe(owner, apply)
    }

    /// Stops calling `owner`.
    public func unsubscribe(_ owner: AnyObject) {
        subscribers.unsubscribe(owner)
    }

    /// Tells every subscriber alive of `change`, in the caller's order.
    public func publish(_ change: CommittedObjectChange) {
        subscribers.publish(change)
    }
}
