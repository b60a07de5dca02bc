import Synchronization

/// Subscribers to a feed of events, each held weakly through its owner: one that is gone stops
/// hearing and is forgotten at the next change of the list, so a feed holds at most one entry per
/// owner alive.
package final class WeakSubscribers<Event: Sendable>: Sendable {
    private struct Subscriber: @unchecked Sendable {
        // Only read under the lock, then called outside it: the owner is Sendable.
        weak var owner: AnyObject?
        let apply: @Sendable (AnyObject, Event) -> Void
    }

    private let subscribers = Mutex<[ObjectIdentifier: Subscriber]>([:])

    package init() {}

    /// Calls `apply` with `owner` for every event from now on, for as long as `owner` lives;
    /// subscribing the same owner again replaces its first subscription.
    package func subscribe<Owner: AnyObject & Sendable>(_ owner: Owner, _ apply: @escaping @Sendable (Owner, Event) -> Void) {
        let subscriber = Subscriber(owner: owner) { owner, event in apply(owner as! Owner, event) }
        subscribers.withLock { subscribers in
            subscribers = subscribers.filter { $0.value.owner != nil }
            subscribers[ObjectIdentifier(owner)] = subscriber
        }
    }

    /// Stops calling `owner`.
    package func unsubscribe(_ owner: AnyObject) {
        subscribers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    /// Tells every subscriber alive of `event`, in the caller's order.
    package func publish(_ event: Event) {
        let alive = subscribers.withLock { subscribers -> [(AnyObject, Subscriber)] in
            subscribers.values.compactMap { subscriber in subscriber.owner.map { ($0, subscriber) } }
        }
        for (owner, subscriber) in alive { subscriber.apply(owner, event) }
    }
}
