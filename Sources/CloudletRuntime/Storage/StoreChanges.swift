/// A change to an app's stores that makes what a node cached of them stale: a write's on any node
/// that shares the stores, as the store tells of it (its commit, heard by every node).
package enum StoreChange: Sendable, Hashable {
    /// Sessions ended, or roles changed: what ``SessionCache/invalidate(_:)`` forgets.
    case sessions(SessionCache.Invalidation)
    /// The schema of this class (its fields, CLPs, indexes) changed, or its objects were purged.
    case classSchema(String)
    /// Changes may have been missed (the node stopped hearing of them for a while): everything
    /// cached goes.
    case everything
}

/// Where the stores that several nodes share (PostgreSQL's) tell one node's caches of an app
/// what any node's writes changed (``AppStores/changes``); a store that one process alone writes
/// (SQLite) has none, as each write there already tells the caches it changes.
///
/// A cache subscribes for as long as it lives: the feed holds it weakly, so a runtime replaced
/// (new hook workers) stops hearing once it is gone, and the feed holds at most one entry per
/// cache alive.
package final class StoreChanges: Sendable {
    private let subscribers = WeakSubscribers<StoreChange>()

    package init() {}

    /// Calls `apply` with `owner` for every change from now on, for as long as `owner` lives;
    /// subscribing the same owner again replaces its first subscription.
    package func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ apply: @escaping @Sendable (Owner, StoreChange) -> Void) {
        subscribers.subscribe(owner, apply)
    }

    /// Tells every subscriber alive of `change`.
    package func publish(_ change: StoreChange) {
        subscribers.publish(change)
    }
}

extension AppContext {
    /// Forgets what `change`, made through this node or another, made stale in the app's caches:
    /// as the node that made it forgot once its write was done.
    func forget(_ change: StoreChange) {
        switch change {
        case .sessions(let invalidation):
            sessionCache.invalidate(invalidation)
        case .classSchema(let className):
            ClassSchemas(self).forget(className)
        case .everything:
            schemas.forgetAll()
            sessionCache.invalidate(.everyone)
        }
    }
}
