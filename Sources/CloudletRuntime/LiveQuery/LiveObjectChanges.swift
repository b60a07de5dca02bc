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
    /// The object as written, or as it was for a delete: as a read answers it (dates to the
    /// millisecond, `File` values with their URLs).
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
///
/// Subscribers are called on the thread that publishes (SQLite's writer, PostgreSQL's listener),
/// one change after the other: they hand each change on (to a stream, a queue) and return, never
/// wait there.
///
/// ```swift
/// stores.liveChanges.classNames = ["Message"]
/// stores.liveChanges.subscribe(server) { server, change in server.enqueue(change) }
/// stores.liveChanges.subscribeToGaps(server) { server in server.closeEveryConnection() }
/// ```
public final class LiveObjectChanges: Sendable {
    private let subscribers = WeakSubscribers<CommittedObjectChange>()
    private let gapSubscribers = WeakSubscribers<Void>()
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
        classes.withLock { !$0.isEmpty && $0.contains(className) }
    }

    /// Calls `apply` with `owner` for every change from now on, for as long as `owner` lives;
    /// subscribing the same owner again replaces its first subscription.
    public func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ apply: @escaping @Sendable (Owner, CommittedObjectChange) -> Void) {
        subscribers.subscribe(owner, apply)
    }

    /// Calls `apply` with `owner` whenever changes may have been missed, for as long as `owner`
    /// lives: the feed stopped hearing of commits for a while (on PostgreSQL, this node lost its
    /// listening connection: told once when it stops hearing and again once it hears again; or a
    /// large change was gone before it was read). What a subscriber derived from the changes
    /// before is then unknown: a LiveQuery server ends its clients' connections, so that they
    /// connect again, subscribe again and query afresh. On SQLite, where the process that writes
    /// is the one that publishes, there are no gaps.
    public func subscribeToGaps<Owner: AnyObject & Sendable>(_ owner: Owner, _ apply: @escaping @Sendable (Owner) -> Void) {
        gapSubscribers.subscribe(owner) { owner, _ in apply(owner) }
    }

    /// Stops calling `owner`, for changes and gaps alike.
    public func unsubscribe(_ owner: AnyObject) {
        subscribers.unsubscribe(owner)
        gapSubscribers.unsubscribe(owner)
    }

    /// Tells every subscriber alive of `change`, in the caller's order.
    public func publish(_ change: CommittedObjectChange) {
        subscribers.publish(change)
    }

    /// Tells every subscriber to gaps that changes may have been missed.
    public func publishGap() {
        gapSubscribers.publish(())
    }
}
