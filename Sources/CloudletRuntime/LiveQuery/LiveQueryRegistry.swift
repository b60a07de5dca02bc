/// The subscriptions of one app's ``LiveQueryHub``: by client (to answer and remove theirs), and by
/// class and query (to match each distinct query once per write).
struct LiveQueryRegistry {
    /// One subscription and the client it belongs to.
    struct Subscriber: Sendable {
        let client: LiveQueryClient
        let subscription: LiveSubscription
    }

    /// The subscriptions of one class that share a query.
    struct Group: Sendable {
        let matcher: LiveQueryMatcher
        var subscribers: [Key: Subscriber] = [:]
    }

    /// A subscription's place: its client and its id.
    struct Key: Hashable {
        let client: ObjectIdentifier
        let requestId: Int
    }

    /// By class, then by query (``LiveSubscription/queryKey``).
    private var byClass: [String: [String: Group]] = [:]
    /// Each client's subscriptions, by id.
    private var byClient: [ObjectIdentifier: (client: LiveQueryClient, subscriptions: [Int: LiveSubscription])] = [:]
    /// How many subscriptions there are.
    private(set) var count = 0

    /// Whether any subscription is of `className`.
    func subscribes(to className: String) -> Bool {
        byClass[className] != nil
    }

    /// The groups of `className`'s subscriptions: a share of the registry's own storage, not a
    /// copy, so that taking them costs the same however many subscriptions there are.
    func groups(of className: String) -> Dictionary<String, Group>.Values {
        (byClass[className] ?? [:]).values
    }

    /// Every client with a subscription.
    var clients: [LiveQueryClient] {
        byClient.values.map(\.client)
    }

    /// Adds `subscription` of `client`, in place of its subscription of the same id; throws 155
    /// when the client has `limit` others already.
    mutating func add(_ subscription: LiveSubscription, of client: LiveQueryClient, limit: Int) throws(LiveQueryRefusal) {
        let id = ObjectIdentifier(client)
        try checkRoom(for: subscription.requestId, of: client, limit: limit)
        _ = remove(subscription.requestId, of: client)
        byClient[id, default: (client, [:])].subscriptions[subscription.requestId] = subscription
        let key = Key(client: id, requestId: subscription.requestId)
        byClass[subscription.className, default: [:]][subscription.queryKey, default: Group(matcher: subscription.matcher)].subscribers[key] =
            Subscriber(client: client, subscription: subscription)
        count += 1
    }

    /// Throws 155 unless `client` may hold a subscription `requestId`: it holds one of that id
    /// (which the new one replaces), or fewer than `limit`.
    func checkRoom(for requestId: Int, of client: LiveQueryClient, limit: Int) throws(LiveQueryRefusal) {
        let held = byClient[ObjectIdentifier(client)]?.subscriptions ?? [:]
        guard held[requestId] != nil || held.count < limit else {
            throw LiveQueryRefusal(code: 155, message: "too many subscriptions: a connection may hold at most \(limit)", requestId: requestId)
        }
    }

    /// Removes `client`'s subscription `requestId`; false if it has none of that id.
    mutating func remove(_ requestId: Int, of client: LiveQueryClient) -> Bool {
        let id = ObjectIdentifier(client)
        guard let subscription = byClient[id]?.subscriptions.removeValue(forKey: requestId) else { return false }
        if byClient[id]?.subscriptions.isEmpty == true { byClient[id] = nil }
        let key = Key(client: id, requestId: requestId)
        byClass[subscription.className]?[subscription.queryKey]?.subscribers[key] = nil
        if byClass[subscription.className]?[subscription.queryKey]?.subscribers.isEmpty == true {
            byClass[subscription.className]?[subscription.queryKey] = nil
        }
        if byClass[subscription.className]?.isEmpty == true { byClass[subscription.className] = nil }
        count -= 1
        return true
    }

    /// Removes every subscription of `client`.
    mutating func remove(_ client: LiveQueryClient) {
        for requestId in byClient[ObjectIdentifier(client)]?.subscriptions.keys.map({ $0 }) ?? [] {
            _ = remove(requestId, of: client)
        }
    }
}
