import Cloudlet
import Logging
import Synchronization

/// One app's LiveQuery subscriptions, and the loop that turns the app's committed writes
/// (``LiveObjectChanges``) into events for them.
///
/// The stores publish each write to the hub without waiting: the hub queues it (at most
/// ``maximumQueuedChanges`` writes of ``maximumQueuedBytes`` in all, as JSON) and its loop
/// (``run()``) takes the writes one at a time, in commit order. For each, it matches the object before and after the write once per distinct query of
/// the class (subscriptions with the same `where` share a match), then decides for each
/// subscription that matched either what its subscriber sees (``LiveQueryEvent``), with that
/// subscriber's read access as a query of theirs would have it: the class-level permissions, the
/// object's ACL with the user's id and roles (the session as the REST API resolves it, from the
/// app's session cache), pointer permissions and protected fields. The event goes to the client's
/// outbox, which never waits. So a write costs a match per distinct query of its class and a
/// decision per subscription that matched, and nothing for the classes no one subscribes to.
///
/// The app's hooks take part: `beforeSubscribe` may refuse a subscription or change its query (which
/// is then compiled and checked as the client's would be), and `afterLiveQueryEvent` may change or
/// drop each event to each subscriber; a write's events then wait for their hooks (at most
/// ``maximumConcurrentEventHooks`` at once) before the next write's are decided, so that each
/// subscriber's events keep their order.
///
/// When the feed tells of a gap (writes may have been missed), the hub disconnects its clients:
/// their SDKs connect, subscribe and query again.
package final class LiveQueryHub: Sendable {
    /// The most writes waiting for the loop; past it (or past ``maximumQueuedBytes``) the hub has
    /// fallen behind, and disconnects its clients (their SDKs connect and subscribe again) rather
    /// than hold more or leave them without the events it dropped.
    package static let maximumQueuedChanges = 10_000
    /// The most bytes (the objects' JSON) of the writes waiting for the loop.
    package static let maximumQueuedBytes = 64 << 20
    /// The most `afterLiveQueryEvent` calls one write's events make at once.
    package static let maximumConcurrentEventHooks = 8

    /// The app's id.
    package let appId: String
    /// The feed the hub hears the app's writes from.
    package let feed: LiveObjectChanges
    private let app: @Sendable () -> AppContext?
    private let connections: (@Sendable () -> Int)?
    private let metrics: CloudletMetrics?
    private let logger: Logger
    private let registry = Mutex(LiveQueryRegistry())
    private let changes: AsyncStream<(change: CommittedObjectChange, bytes: Int)>
    private let queue: AsyncStream<(change: CommittedObjectChange, bytes: Int)>.Continuation
    /// The bytes queued, and whether a write was dropped since the loop last looked.
    private let backlog = Mutex((bytes: 0, fellBehind: false))

    /// A hub for app `appId`, hearing `feed`; `app` answers the app's runtime as it is now (nil once
    /// the app is no longer served), `connections` how many LiveQuery connections the app has open
    /// (nil: the clients that hold a subscription).
    package init(
        appId: String, feed: LiveObjectChanges, app: @escaping @Sendable () -> AppContext?, connections: (@Sendable () -> Int)? = nil,
        metrics: CloudletMetrics?, logger: Logger
    ) {
        self.appId = appId
        self.feed = feed
        self.app = app
        self.connections = connections
        self.metrics = metrics
        self.logger = logger
        (changes, queue) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.maximumQueuedChanges))
        feed.subscribe(self) { hub, change in hub.heard(change) }
        feed.subscribeToGaps(self) { hub in hub.disconnectAll() }
    }

    /// Takes the app's writes, one at a time, until the task is cancelled; then disconnects every client.
    package func run() async {
        for await (change, bytes) in changes {
            let fellBehind = backlog.withLock { backlog in
                backlog.bytes -= bytes
                defer { backlog.fellBehind = false }
                return backlog.fellBehind
            }
            if fellBehind {
                logger.warning("LiveQuery fell behind the app's writes; its clients are disconnected", metadata: ["app": "\(appId)"])
                disconnectAll()
                continue
            }
            guard let app = app() else {
                disconnectAll()
                continue
            }
            await deliver(change, in: app)
        }
        disconnectAll()
    }

    /// Stops taking writes: ``run()`` ends once it has finished the one under way.
    package func stop() {
        feed.unsubscribe(self)
        queue.finish()
    }

    /// How many subscriptions the hub holds.
    package var subscriptionCount: Int {
        registry.withLock { $0.count }
    }

    /// The app's LiveQuery connections and subscriptions, as its hooks are told them.
    package var load: LiveQueryLoad {
        LiveQueryLoad(clients: connections?() ?? registry.withLock { $0.clients.count }, subscriptions: subscriptionCount)
    }

    /// A write the stores committed: queued for the loop if anyone subscribes to its class.
    private func heard(_ change: CommittedObjectChange) {
        guard registry.withLock({ $0.subscribes(to: change.object.className) }) else { return }
        let bytes = JSONWriter.byteCount(.object(change.object.json)) + (change.original.map { JSONWriter.byteCount(.object($0.json)) } ?? 0)
        let fits = backlog.withLock { backlog in
            guard backlog.bytes + bytes <= Self.maximumQueuedBytes else {
                backlog.fellBehind = true
                return false
            }
            backlog.bytes += bytes
            return true
        }
        guard fits else { return }
        if case .dropped = queue.yield((change, bytes)) {
            backlog.withLock { backlog in
                backlog.bytes -= bytes
                backlog.fellBehind = true
            }
        }
    }

    /// Ends every client's outbox (their connections close) and forgets their subscriptions.
    package func disconnectAll() {
        let clients = registry.withLock { registry in
            defer { registry = LiveQueryRegistry() }
            return registry.clients
        }
        for client in clients { client.outbox.finish(.disconnected) }
        recordCount()
    }

    // MARK: Subscriptions

    /// Admits `request` from `client` as a subscription (in place of the client's subscription of
    /// the same id, if any) and answers `subscribed`, or throws why not: the class does not publish live events (119), the
    /// client has `limit` subscriptions already (155), the session is not valid (209), or a query
    /// of the subscriber's on the class would be refused (its class-level permissions, a filter on
    /// a protected field, a query the matcher cannot match), or the class's `beforeSubscribe` hook
    /// refused it. The query is the one the hook leaves.
    package func subscribe(_ request: LiveQuerySubscribe, by client: LiveQueryClient, in app: AppContext, limit: Int) async throws(LiveQueryRefusal) {
        var request = request
        let requestId = request.requestId
        guard app.stores.liveChanges.publishes(request.className) else {
            throw LiveQueryRefusal(
                code: 119, message: "LiveQuery is not enabled for class \(request.className): the app's liveQuery.classNames must name it",
                requestId: requestId)
        }
        // Refused before any other work when the client has no room for it.
        try registry.withLock { registry throws(LiveQueryRefusal) in try registry.checkRoom(for: requestId, of: client, limit: limit) }
        let reader = Self.reader(of: request, by: client)
        var subscription = try LiveSubscription(request, reader: reader)
        do {
            let caller = try await caller(reading: reader, for: client, in: app)
            let changed = try await LiveQueryTriggers(app).beforeSubscribe(request, caller: caller, load: load)
            if changed != request {
                request = changed
                subscription = try LiveSubscription(request, reader: reader)
            }
            let permissions = ClassPermissions(app)
            _ = try await permissions.check(subscription.operation, request.className, by: caller)
            _ = try await permissions.checkedQuery(ParseQuery(request.className, constraints: request.constraints), by: caller)
        } catch let refusal as LiveQueryRefusal {
            throw refusal
        } catch let error as ParseError {
            throw LiveQueryRefusal(error, requestId: requestId)
        } catch {
            throw LiveQueryRefusal(code: 1, message: "the subscription could not be checked; try again", reconnect: true, requestId: requestId)
        }
        try registry.withLock { registry throws(LiveQueryRefusal) in
            try registry.add(subscription, of: client, limit: limit)
            // Answered before the loop can see the subscription, so that no event comes before it.
            client.send(LiveQueryMessage.subscribed(clientId: client.id, requestId: requestId, installationId: client.installationId))
        }
        recordCount()
    }

    /// Removes `client`'s subscription `requestId`; false if it has none of that id.
    package func unsubscribe(_ requestId: Int, of client: LiveQueryClient) -> Bool {
        let removed = registry.withLock { $0.remove(requestId, of: client) }
        recordCount()
        return removed
    }

    /// Removes every subscription of `client` (it disconnected).
    package func remove(_ client: LiveQueryClient) {
        registry.withLock { $0.remove(client) }
        recordCount()
    }

    private func recordCount() {
        metrics?.liveQuerySubscriptions(app: appId, count: subscriptionCount)
    }

    /// Whose access `request` reads with: the master key's, else its own session's or its client's.
    private static func reader(of request: LiveQuerySubscribe, by client: LiveQueryClient) -> LiveSubscription.Reader {
        guard !client.isMaster else { return .master }
        guard let token = request.sessionToken ?? client.sessionToken else { return .anonymous }
        return .session(tokenHash: SessionToken.hash(token))
    }

    /// The caller `reader` stands for now; throws 209 once its session has ended or expired.
    private func caller(reading reader: LiveSubscription.Reader, for client: LiveQueryClient, in app: AppContext) async throws -> Caller {
        switch reader {
        case .master:
            return Caller(isMaster: true, installationId: client.installationId, requestId: client.id)
        case .anonymous:
            return Caller(isMaster: false, installationId: client.installationId, requestId: client.id)
        case .session(let tokenHash):
            return try await UserAccounts(app).caller(sessionTokenHash: tokenHash, installationId: client.installationId, requestId: client.id)
        }
    }

    // MARK: Events

    /// Sends `change` to every subscription of its class that sees it.
    private func deliver(_ change: CommittedObjectChange, in app: AppContext) async {
        let className = change.object.className
        let groups = registry.withLock { $0.groups(of: className) }
        guard !groups.isEmpty else { return }
        let schema: StoredClassSchema?
        do {
            schema = try await app.schemas.schema(of: className)
        } catch {
            logger.error("LiveQuery could not read a class's permissions; its events are lost", metadata: ["app": "\(appId)", "class": "\(className)"])
            return
        }
        let before = change.kind == .delete ? change.object : change.original
        var matches: [(subscriber: LiveQueryRegistry.Subscriber, matched: (before: Bool, after: Bool))] = []
        for group in groups {
            let matchedBefore = before.map(group.matcher.matches) ?? false
            let matchedAfter = change.kind != .delete && group.matcher.matches(change.object)
            guard matchedBefore || matchedAfter else { continue }
            matches += group.subscribers.values.lazy.map { ($0, (matchedBefore, matchedAfter)) }
        }
        guard LiveQueryTriggers(app).hasAfterEvent(className) else {
            for (subscriber, matched) in matches { await deliver(change, to: subscriber, matched: matched, schema: schema, in: app) }
            return
        }
        // Each event waits for its hook: a few at once, all of them before the next write's.
        await withTaskGroup(of: Void.self) { tasks in
            for (index, (subscriber, matched)) in matches.enumerated() {
                if index >= Self.maximumConcurrentEventHooks { await tasks.next() }
                tasks.addTask { await self.deliver(change, to: subscriber, matched: matched, schema: schema, in: app) }
            }
        }
    }

    /// Sends `change` to one subscription whose query it `matched` before or after, if its
    /// subscriber sees it, as the class's `afterLiveQueryEvent` hook leaves the event: the hook gets
    /// the object as the subscriber would, and what it answers is redacted again and limited to the
    /// subscription's `keys`. A hook that fails or times out loses the event (it is logged).
    private func deliver(
        _ change: CommittedObjectChange, to subscriber: LiveQueryRegistry.Subscriber, matched: (before: Bool, after: Bool), schema: StoredClassSchema?,
        in app: AppContext
    ) async {
        let (client, subscription) = (subscriber.client, subscriber.subscription)
        let caller: Caller
        do {
            caller = try await self.caller(reading: subscription.reader, for: client, in: app)
        } catch let error as ParseError where error.code == 209 {
            // The session ended (a logout, its expiry): the subscription ends, and the client is told.
            if unsubscribe(subscription.requestId, of: client) { client.send(LiveQueryRefusal(error, requestId: subscription.requestId)) }
            return
        } catch {
            logger.error("LiveQuery could not resolve a subscriber's session; an event is lost", metadata: ["app": "\(appId)"])
            return
        }
        let access = LiveReadAccess(
            caller: caller, operation: subscription.operation, className: subscription.className, schema: schema,
            allowsClientClassCreation: app.allowsClientClassCreation, protectedFields: app.protectedFields)
        guard let access else { return }
        let before = change.kind == .delete ? change.object : change.original
        let seenBefore = matched.before && before.map(access.reads) == true
        let seenAfter = matched.after && access.reads(change.object)
        guard let event = LiveQueryEvent.of(change, seenBefore: seenBefore, seenAfter: seenAfter, watch: subscription.watch) else { return }
        var object = access.redacted(change.object)
        let original = event.carriesOriginal ? change.original.map(access.redacted) : nil
        do {
            let answer = try await LiveQueryTriggers(app).afterEvent(event, object: object, original: original, caller: caller, load: load)
            guard let answer else { return }
            object = access.redacted(answer)
        } catch {
            logger.warning("LiveQuery's afterLiveQueryEvent hook failed; an event is lost", metadata: ["app": "\(appId)", "class": "\(subscription.className)"])
            return
        }
        let message = LiveQueryMessage.event(
            event, clientId: client.id, requestId: subscription.requestId, installationId: client.installationId, object: subscription.shown(object),
            original: original.map(subscription.shown))
        if client.send(message) { metrics?.liveQueryEventSent(app: appId, event: event.rawValue) }
    }
}
