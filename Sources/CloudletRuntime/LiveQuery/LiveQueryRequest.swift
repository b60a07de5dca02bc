import Cloudlet

/// A message from a LiveQuery client, read and checked as Parse Server's request schema checks
/// it: `connect`, `subscribe`, `update` (a subscription's query replaced) and `unsubscribe`. A
/// member the request does not use is ignored; one of the wrong type is refused with code 1, an
/// unknown `op` with code 3.
///
/// ```swift
/// let request = try LiveQueryRequest(json: Array(#"{"op":"unsubscribe","requestId":1}"#.utf8))
/// // .unsubscribe(requestId: 1)
/// ```
public enum LiveQueryRequest: Sendable, Equatable {
    case connect(LiveQueryConnect)
    case subscribe(LiveQuerySubscribe)
    case update(LiveQuerySubscribe)
    case unsubscribe(requestId: Int)

    /// The deepest nesting a request may have (a `where` inside its query).
    public static let maximumDepth = 32

    /// Reads one message's bytes: JSON text holding one request.
    public init(json bytes: some Collection<UInt8>) throws(LiveQueryRefusal) {
        let value: ParseValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: Self.maximumDepth)
        } catch {
            throw .invalidRequest("the message is not JSON: \((error as? JSONParser.Failure)?.reason ?? "unreadable")")
        }
        guard let members = value.objectValue else { throw .invalidRequest("the message must be a JSON object") }
        let request = LiveQueryMembers(members)
        guard let op = try request.string("op") else { throw .invalidRequest("Missing required property: op") }
        switch op {
        case "connect": self = .connect(try LiveQueryConnect(request))
        case "subscribe": self = .subscribe(try LiveQuerySubscribe(request))
        case "update": self = .update(try LiveQuerySubscribe(request))
        case "unsubscribe": self = .unsubscribe(requestId: try request.requestId())
        default: throw .unknownOperation
        }
    }
}

/// What a `connect` carries: the app, its key, and who connects.
public struct LiveQueryConnect: Sendable, Equatable {
    /// The app's id (the REST API's `X-Parse-Application-Id`).
    public var applicationId: String
    /// A client key, under whichever name the SDK sends it: `clientKey`, `javascriptKey`,
    /// `restAPIKey` or `windowsKey`.
    public var clientKey: String?
    /// The master key.
    public var masterKey: String?
    /// The user's session: every subscription that names none reads as this user.
    public var sessionToken: String?
    /// The device's installation id, sent back with every message.
    public var installationId: String?

    public init(
        applicationId: String, clientKey: String? = nil, masterKey: String? = nil, sessionToken: String? = nil, installationId: String? = nil
    ) {
        self.applicationId = applicationId
        self.clientKey = clientKey
        self.masterKey = masterKey
        self.sessionToken = sessionToken
        self.installationId = installationId
    }

    init(_ request: LiveQueryMembers) throws(LiveQueryRefusal) {
        guard let applicationId = try request.string("applicationId") else { throw .invalidRequest("Missing required property: applicationId") }
        var clientKey: String?
        for name in ["clientKey", "javascriptKey", "restAPIKey", "windowsKey"] {
            if let key = try request.string(name), clientKey == nil { clientKey = key }
        }
        self.init(
            applicationId: applicationId, clientKey: clientKey, masterKey: try request.string("masterKey"),
            sessionToken: try request.string("sessionToken"), installationId: try request.string("installationId"))
    }
}

/// What a `subscribe` (or an `update`) carries: the subscription's id and query, and whose session it reads with.
public struct LiveQuerySubscribe: Sendable, Equatable {
    /// The client's id for the subscription, in every message about it.
    public var requestId: Int
    /// The class subscribed to.
    public var className: String
    /// The query's constraints (`where`).
    public var constraints: [String: ParseValue]
    /// The fields events carry (`keys`, or `fields` as older SDKs name it), with the object's id,
    /// class, timestamps and ACL; nil for all.
    public var keys: [String]?
    /// The fields whose change makes an update (or a create) an event; nil for any.
    public var watch: [String]?
    /// The session this subscription reads with, in place of the connection's.
    public var sessionToken: String?

    /// The most `keys` or `watch` fields one subscription may name.
    public static let maximumFields = 256

    public init(
        requestId: Int, className: String, constraints: [String: ParseValue] = [:], keys: [String]? = nil, watch: [String]? = nil,
        sessionToken: String? = nil
    ) {
        self.requestId = requestId
        self.className = className
        self.constraints = constraints
        self.keys = keys
        self.watch = watch
        self.sessionToken = sessionToken
    }

    init(_ request: LiveQueryMembers) throws(LiveQueryRefusal) {
        let requestId = try request.requestId()
        do throws(LiveQueryRefusal) {
            guard let queryMembers = request.members["query"]?.objectValue else { throw .invalidRequest("query must be an object") }
            let query = LiveQueryMembers(queryMembers)
            guard let className = try query.string("className") else { throw .invalidRequest("Missing required property: className") }
            guard let constraints = query.members["where"]?.objectValue else { throw .invalidRequest("where must be an object") }
            let keys = try query.fieldNames("keys")
            let fields = try query.fieldNames("fields")
            self.init(
                requestId: requestId, className: className, constraints: constraints, keys: keys ?? fields, watch: try query.fieldNames("watch"),
                sessionToken: try request.string("sessionToken"))
        } catch {
            throw error.about(requestId)
        }
    }
}

/// The members of a request's object, read with the type each must have.
struct LiveQueryMembers {
    let members: [String: ParseValue]

    init(_ members: [String: ParseValue]) {
        self.members = members
    }

    /// The string member `name`; nil if absent (or null).
    func string(_ name: String) throws(LiveQueryRefusal) -> String? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string") }
        return text
    }

    /// The request's `requestId`: a whole number.
    func requestId() throws(LiveQueryRefusal) -> Int {
        guard let value = members["requestId"] else { throw .invalidRequest("Missing required property: requestId") }
        guard let id = value.intValue else { throw .invalidRequest("requestId must be a whole number") }
        return id
    }

    /// The member `name` as a list of at least one field name, each once; nil if absent.
    func fieldNames(_ name: String) throws(LiveQueryRefusal) -> [String]? {
        guard let value = members[name], !value.isNull else { return nil }
        guard let list = value.arrayValue, !list.isEmpty, list.count <= LiveQuerySubscribe.maximumFields else {
            throw .invalidRequest("\(name) must be a list of 1 to \(LiveQuerySubscribe.maximumFields) field names")
        }
        var names: [String] = []
        var seen: Set<String> = []
        for element in list {
            guard let field = element.stringValue else { throw .invalidRequest("\(name) must list field names") }
            guard seen.insert(field).inserted else { throw .invalidRequest("\(name) must name each field once") }
            names.append(field)
        }
        return names
    }
}
