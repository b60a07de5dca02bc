import Cloudlet

/// One subscription of a connected client, as its app's ``LiveQueryHub`` keeps it: its query, the
/// fields its events carry and watch, and whose read access its events are checked against.
package struct LiveSubscription: Sendable {
    /// Whose access a subscription reads with.
    package enum Reader: Sendable, Hashable {
        /// The master key: every object.
        case master
        /// No user: what the public may read.
        case anonymous
        /// The user of the session whose token hashes (SHA-256) to this, as long as it lasts.
        case session(tokenHash: String)
    }

    /// The fields an event carries whatever its `keys`.
    package static let alwaysSent: Set<String> = ["className", "objectId", "createdAt", "updatedAt", "ACL"]

    /// The client's id for it.
    package let requestId: Int
    /// The class subscribed to.
    package let className: String
    /// Its query's constraints.
    package let matcher: LiveQueryMatcher
    /// Its `where` as canonical JSON: subscriptions with the same one are matched once per change.
    package let queryKey: String
    /// The fields its events carry besides ``alwaysSent``; nil for all.
    package let keys: Set<String>?
    /// The fields whose change makes an event; nil for any.
    package let watch: [String]?
    /// Whose access it reads with.
    package let reader: Reader
    /// The class-level permission it reads under: `get` for a query on one object id alone, else
    /// `find`, as Parse Server takes it.
    package let operation: ClassLevelPermissions.Operation

    /// The subscription `request` asks for, reading as `reader`; throws the matcher's refusal of its query.
    package init(_ request: LiveQuerySubscribe, reader: Reader) throws(LiveQueryRefusal) {
        do {
            matcher = try LiveQueryMatcher(className: request.className, where: request.constraints)
        } catch let error as ParseError {
            throw LiveQueryRefusal(error, requestId: request.requestId)
        } catch {
            throw LiveQueryRefusal.invalidRequest("the query cannot be matched").about(request.requestId)
        }
        requestId = request.requestId
        className = request.className
        queryKey = JSONWriter.string(.object(request.constraints))
        keys = request.keys.map(Set.init)
        watch = request.watch
        self.reader = reader
        let onObjectId = request.constraints.count == 1 && request.constraints["objectId"]?.stringValue != nil
        operation = onObjectId ? .get : .find
    }

    /// `object` as the event carries it: its REST form with its class, only ``keys`` (and
    /// ``alwaysSent``) when given.
    package func shown(_ object: ParseObject) -> ParseValue {
        var json = object.json
        json["className"] = .string(object.className)
        if let keys { json = json.filter { keys.contains($0.key) || Self.alwaysSent.contains($0.key) } }
        return .object(json)
    }
}
