/// What happened to an object, as a LiveQuery subscription is told of it.
public enum LiveQueryEvent: String, Sendable, Hashable, Codable, CaseIterable {
    /// A new object that matches the subscription.
    case create
    /// A changed object that matches now and did not before.
    case enter
    /// A changed object that matched before and still does.
    case update
    /// A changed object that matched before and no longer does.
    case leave
    /// A deleted object that matched.
    case delete
}

/// What a `beforeConnect` hook receives: a LiveQuery client asking to connect. The context tells
/// who: its `user` (from the connect's session token), `isMaster`, `installationId`. Throwing
/// refuses the connection with the hook's error.
public struct ConnectRequest: HookRequest {
    /// The LiveQuery connections the app has open on this server.
    public let clients: Int
    /// The subscriptions those connections hold.
    public let subscriptions: Int
    /// The call's context.
    public let context: HookContext

    package init(clients: Int, subscriptions: Int, context: HookContext) {
        self.clients = clients
        self.subscriptions = subscriptions
        self.context = context
    }
}

/// What a `beforeSubscribe` hook receives: the query of a LiveQuery subscription about to be made
/// (or changed by an `update`), which the hook may change — its `where` and `keys` are what the
/// subscription then matches and sends. Throwing refuses the subscription with the hook's error.
public struct SubscribeRequest: HookRequest {
    /// The subscription's query; its class cannot be changed.
    public var query: ParseQuery
    /// The LiveQuery connections the app has open on this server.
    public let clients: Int
    /// The subscriptions those connections hold.
    public let subscriptions: Int
    /// The call's context: the subscriber's user, master key, installation.
    public let context: HookContext

    package init(query: ParseQuery, clients: Int, subscriptions: Int, context: HookContext) {
        self.query = query
        self.clients = clients
        self.subscriptions = subscriptions
        self.context = context
    }
}

/// What an `afterLiveQueryEvent` hook receives: one event about to be sent to one subscriber, who
/// may read the object. The hook may change ``object`` (what is sent) or set ``sendEvent`` to false
/// to send nothing. Throwing sends nothing and is logged.
public struct LiveQueryEventRequest: HookRequest {
    /// What happened.
    public let event: LiveQueryEvent
    /// The object as the subscriber will get it (its `keys`, protected fields hidden).
    public var object: ParseObject
    /// For `update`, `enter` and `leave`, the object before the write, as the subscriber may see it.
    public let original: ParseObject?
    /// Whether the event is sent: set it to false to drop it.
    public var sendEvent = true
    /// The LiveQuery connections the app has open on this server.
    public let clients: Int
    /// The subscriptions those connections hold.
    public let subscriptions: Int
    /// The call's context: the subscriber's user, master key, installation.
    public let context: HookContext

    package init(
        event: LiveQueryEvent, object: ParseObject, original: ParseObject?, clients: Int, subscriptions: Int, context: HookContext
    ) {
        self.event = event
        self.object = object
        self.original = original
        self.clients = clients
        self.subscriptions = subscriptions
        self.context = context
    }
}
