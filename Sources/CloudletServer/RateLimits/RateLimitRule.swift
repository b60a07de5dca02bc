import Cloudlet

/// One rate limit rule, in the shape of Parse Server's `rateLimit` option.
///
/// ```json
/// {"requestPath": "/functions/*", "requestMethods": ["POST"], "requestTimeWindow": 60000,
///  "requestCount": 5, "zone": "ip", "errorResponseMessage": "Slow down"}
/// ```
public struct RateLimitRule: Sendable, Hashable {
    /// The paths the rule covers, below the mount path.
    public var requestPath: PathPattern
    /// The methods it covers (upper case); nil for all.
    public var requestMethods: Set<String>?
    /// How many requests each key may make per ``requestTimeWindow``.
    public var quota: RateLimitQuota
    /// The message refused requests get; Parse Server's default when nil.
    public var errorResponseMessage: String?
    /// What requests are counted by.
    public var zone: RateLimitZone
    /// Whether master-key requests count too. Default false.
    public var includeMasterKey: Bool
    /// Whether the store calls hooks make count too. Default false.
    public var includeInternalRequests: Bool

    public init(
        requestPath: PathPattern, requestMethods: Set<String>? = nil, quota: RateLimitQuota, errorResponseMessage: String? = nil,
        zone: RateLimitZone = .ip, includeMasterKey: Bool = false, includeInternalRequests: Bool = false
    ) {
        self.requestPath = requestPath
        self.requestMethods = requestMethods.map { Set($0.map { $0.uppercased() }) }
        self.quota = quota
        self.errorResponseMessage = errorResponseMessage
        self.zone = zone
        self.includeMasterKey = includeMasterKey
        self.includeInternalRequests = includeInternalRequests
    }

    /// Whether the rule counts `request`.
    func covers(_ request: RateLimitedRequest) -> Bool {
        if request.isMaster && !includeMasterKey { return false }
        if request.isInternal && !includeInternalRequests { return false }
        if let requestMethods, !requestMethods.contains(request.method) { return false }
        return requestPath.matches(request.path)
    }
}

extension RateLimitRule {
    /// The rule from its JSON form (Parse Server's field names; `requestTimeWindow` in ms).
    public init(json: ParseValue) throws {
        func invalid(_ what: String) -> ParseError { ParseError(code: 1, message: "rate limit rule: \(what)") }
        guard let members = json.objectValue else { throw invalid("must be an object") }
        let known: Set<String> = [
            "requestPath", "requestMethods", "requestTimeWindow", "requestCount", "errorResponseMessage", "zone",
            "includeMasterKey", "includeInternalRequests",
        ]
        if let unknown = members.keys.first(where: { !known.contains($0) }) { throw invalid("unknown field \(unknown)") }
        guard let pathText = members["requestPath"]?.stringValue, let path = PathPattern(pathText) else {
            throw invalid("requestPath must be a path pattern such as /functions/*")
        }
        guard let window = members["requestTimeWindow"]?.intValue, window > 0 else {
            throw invalid("requestTimeWindow must be a positive number of milliseconds")
        }
        guard let count = members["requestCount"]?.intValue, count > 0 else { throw invalid("requestCount must be a positive integer") }
        var methods: Set<String>?
        if let list = members["requestMethods"] {
            guard let names = list.arrayValue?.compactMap(\.stringValue), names.count == list.arrayValue?.count else {
                throw invalid("requestMethods must be an array of method names")
            }
            methods = Set(names.map { $0.uppercased() })
        }
        var zone = RateLimitZone.ip
        if let zoneValue = members["zone"] {
            guard let name = zoneValue.stringValue, let parsed = RateLimitZone(rawValue: name) else {
                throw invalid("zone must be one of global, ip, user, session")
            }
            zone = parsed
        }
        func flag(_ name: String) throws -> Bool {
            guard let value = members[name] else { return false }
            guard let bool = value.boolValue else { throw invalid("\(name) must be true or false") }
            return bool
        }
        if let message = members["errorResponseMessage"], message.stringValue == nil {
            throw invalid("errorResponseMessage must be a string")
        }
        self.init(
            requestPath: path, requestMethods: methods, quota: RateLimitQuota(count: count, window: .milliseconds(window)),
            errorResponseMessage: members["errorResponseMessage"]?.stringValue, zone: zone,
            includeMasterKey: try flag("includeMasterKey"), includeInternalRequests: try flag("includeInternalRequests"))
    }

    /// The rule's JSON form.
    public var json: ParseValue {
        var members: [String: ParseValue] = [
            "requestPath": .string(requestPath.description),
            "requestTimeWindow": .number((quota.window.seconds * 1000).rounded()),
            "requestCount": .number(Double(quota.count)),
            "zone": .string(zone.rawValue),
            "includeMasterKey": .bool(includeMasterKey),
            "includeInternalRequests": .bool(includeInternalRequests),
        ]
        if let requestMethods { members["requestMethods"] = .array(requestMethods.sorted().map(ParseValue.string)) }
        if let errorResponseMessage { members["errorResponseMessage"] = .string(errorResponseMessage) }
        return .object(members)
    }
}
