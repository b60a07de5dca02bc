/// The registration methods of the LiveQuery kinds, which run when a client connects, when it
/// subscribes, and for each event sent to a subscriber.
///
/// ```swift
/// hooks.beforeConnect { request in
///     guard request.user != nil else { throw HookError.unauthorized("log in first") }
/// }
/// hooks.beforeSubscribe("Messages") { request in
///     request.query.constraints["hidden"] = ["$ne": true]
/// }
/// hooks.afterLiveQueryEvent("Messages") { request in
///     if request.object["flagged"] == true { request.sendEvent = false }
/// }
/// ```
extension HookRegistry {
    /// A `beforeConnect` handler: throwing refuses the connection.
    public typealias ConnectHandler = @Sendable (ConnectRequest) async throws -> Void
    /// A `beforeSubscribe` handler: may change `request.query`, or throw to refuse the subscription.
    public typealias SubscribeHandler = @Sendable (inout SubscribeRequest) async throws -> Void
    /// An `afterLiveQueryEvent` handler: may change `request.object`, or drop the event.
    public typealias LiveQueryEventHandler = @Sendable (inout LiveQueryEventRequest) async throws -> Void

    /// Runs `handler` on each LiveQuery `connect` whose keys and session checked out, before the
    /// client is told it is connected; throwing refuses it with the hook's error (141 unless it is
    /// a ``ParseError``).
    public mutating func beforeConnect(timeLimit: Duration = HookKind.beforeConnect.defaultTimeLimit, _ handler: @escaping ConnectHandler) {
        register(.beforeConnect, "", timeLimit: timeLimit) { call in
            try await handler(ConnectRequest(clients: call.count("clients"), subscriptions: call.count("subscriptions"), context: call.context))
            return .null
        }
    }

    /// Runs `handler` on each LiveQuery subscription to `className` (and each `update` of one)
    /// before it is made; the query it leaves is the subscription's, and throwing refuses it.
    public mutating func beforeSubscribe(
        _ className: String, timeLimit: Duration = HookKind.beforeSubscribe.defaultTimeLimit, _ handler: @escaping SubscribeHandler
    ) {
        register(.beforeSubscribe, className, timeLimit: timeLimit) { call in
            var request = SubscribeRequest(
                query: ParseQuery(className, json: call.input), clients: call.count("clients"), subscriptions: call.count("subscriptions"),
                context: call.context)
            try await handler(&request)
            request.query.className = className
            return request.query.json
        }
    }

    /// Runs `handler` on each LiveQuery event of `className` before it is sent to a subscriber (once
    /// per subscriber, as that subscriber); the object it leaves is sent, unless it sets
    /// `sendEvent` to false.
    public mutating func afterLiveQueryEvent(
        _ className: String, timeLimit: Duration = HookKind.afterLiveQueryEvent.defaultTimeLimit, _ handler: @escaping LiveQueryEventHandler
    ) {
        register(.afterLiveQueryEvent, className, timeLimit: timeLimit) { call in
            guard let event = call.input["event"]?.stringValue.flatMap(LiveQueryEvent.init), let object = call.input["object"]?.objectValue else {
                throw HookError.failed("afterLiveQueryEvent needs an event and an object")
            }
            var request = LiveQueryEventRequest(
                event: event, object: ParseObject(className: className, json: object),
                original: call.input["original"]?.objectValue.map { ParseObject(className: className, json: $0) },
                clients: call.count("clients"), subscriptions: call.count("subscriptions"), context: call.context)
            try await handler(&request)
            request.object.className = className
            return request.sendEvent ? .object(request.object.json) : .null
        }
    }

    /// Runs `handler` on each LiveQuery event of `className`, the object decoded as `Model`, before
    /// it is sent to a subscriber; the model as the handler leaves it is sent (written over the
    /// object, so fields it does not name stay), unless the handler answers false.
    ///
    /// ```swift
    /// hooks.afterLiveQueryEvent("Messages", as: Message.self) { message, event, context in
    ///     message.text = message.text.redactingLinks()
    ///     return true
    /// }
    /// ```
    public mutating func afterLiveQueryEvent<Model: Codable & Sendable>(
        _ className: String, as model: Model.Type, timeLimit: Duration = HookKind.afterLiveQueryEvent.defaultTimeLimit,
        _ handler: @escaping @Sendable (inout Model, LiveQueryEvent, HookContext) async throws -> Bool
    ) {
        afterLiveQueryEvent(className, timeLimit: timeLimit) { request in
            var value = try Self.decode(Model.self, from: request.object)
            request.sendEvent = try await handler(&value, request.event, request.context)
            request.object = try Self.written(value, over: request.object)
        }
    }
}

extension HookRegistry.Call {
    /// The whole number the input holds at `member` (0 if none).
    fileprivate func count(_ member: String) -> Int {
        input[member]?.intValue ?? 0
    }
}
