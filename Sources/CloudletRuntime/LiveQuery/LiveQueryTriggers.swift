import Cloudlet

/// How many LiveQuery connections and subscriptions an app has open on this server: what its
/// LiveQuery hooks are told as `clients` and `subscriptions`.
package struct LiveQueryLoad: Sendable, Hashable {
    package var clients: Int
    package var subscriptions: Int

    package init(clients: Int, subscriptions: Int) {
        self.clients = clients
        self.subscriptions = subscriptions
    }

    /// The load as the hooks' input members.
    var members: [String: ParseValue] {
        ["clients": .number(Double(clients)), "subscriptions": .number(Double(subscriptions))]
    }
}

/// The LiveQuery kinds' call sites: `beforeConnect` may refuse a connection, `beforeSubscribe` may
/// change or refuse a subscription's query, `afterLiveQueryEvent` may change or drop one event to
/// one subscriber. Each runs as the client it serves, under its time limit, in the app's hook slots.
/// The app's `load` is read only when a hook runs.
package struct LiveQueryTriggers {
    let app: AppContext

    package init(_ app: AppContext) {
        self.app = app
    }

    /// Runs the app's `beforeConnect` hook, if it has one, for a client connecting as `caller`; its
    /// error refuses the connection.
    package func beforeConnect(caller: Caller, load: @autoclosure () -> LiveQueryLoad) async throws {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.beforeConnect, "") else { return }
        _ = try await hooks.run(hook, input: HookPayload(.object(load().members)), caller: caller)
    }

    /// `request` as the `beforeSubscribe` hook of its class leaves it (`request` itself if there is
    /// none), for a subscriber acting as `caller`; the hook's error refuses the subscription. The
    /// hook's query is read as a client's is (its `where` and `keys`; the class and `watch` stay),
    /// and refused with code 1 if it is not one.
    package func beforeSubscribe(_ request: LiveQuerySubscribe, caller: Caller, load: @autoclosure () -> LiveQueryLoad) async throws -> LiveQuerySubscribe {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.beforeSubscribe, request.className) else { return request }
        let query = ParseQuery(request.className, constraints: request.constraints, keys: request.keys)
        let input = (query.json.objectValue ?? [:]).merging(load().members) { query, _ in query }
        let answer = try await hooks.run(hook, input: HookPayload(.object(input)), caller: caller)
        var changed = answer.objectValue ?? [:]
        changed["className"] = .string(request.className)
        changed["watch"] = request.watch.map { .array($0.map(ParseValue.string)) }
        var members: [String: ParseValue] = ["requestId": .number(Double(request.requestId)), "query": .object(changed)]
        members["sessionToken"] = request.sessionToken.map(ParseValue.string)
        return try LiveQuerySubscribe(LiveQueryMembers(members))
    }

    /// Whether the app has an `afterLiveQueryEvent` hook for `className`: when it has none, an event
    /// goes out as built, with no call.
    package func hasAfterEvent(_ className: String) -> Bool {
        HookRunner(app).hook(.afterLiveQueryEvent, className) != nil
    }

    /// `object` as the `afterLiveQueryEvent` hook of its class leaves it for the subscriber acting
    /// as `caller`, or nil if the hook dropped the event (`object` itself if there is no hook). The
    /// hook's error is thrown: the event is not sent.
    package func afterEvent(
        _ event: LiveQueryEvent, object: ParseObject, original: ParseObject?, caller: Caller, load: @autoclosure () -> LiveQueryLoad
    ) async throws -> ParseObject? {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.afterLiveQueryEvent, object.className) else { return object }
        var input = load().members
        input["event"] = .string(event.rawValue)
        input["object"] = .object(object.json)
        if let original { input["original"] = .object(original.json) }
        let answer = try await hooks.run(hook, input: HookPayload(.object(input)), caller: caller)
        guard let fields = answer.objectValue else { return nil }
        var sent = ParseObject(className: object.className, json: fields)
        sent.className = object.className
        return sent
    }
}
