import Cloudlet

/// A LiveQuery request refused, as the client is told: `{"op":"error","code":…,"error":…,
/// "reconnect":…,"requestId":…}`. The codes are Parse Server's LiveQuery codes (1 to 4) and, for
/// what a query by the same caller would be refused for, the REST API's (101, 119, 155, 209, …).
public struct LiveQueryRefusal: Error, Sendable, Equatable {
    /// The Parse error code.
    public var code: Int
    /// What is wrong, in words the client can read.
    public var message: String
    /// Whether the client should connect again (SDKs then do, with backoff).
    public var reconnect: Bool
    /// The subscription the refusal is about, if any.
    public var requestId: Int?

    public init(code: Int, message: String, reconnect: Bool = false, requestId: Int? = nil) {
        self.code = code
        self.message = message
        self.reconnect = reconnect
        self.requestId = requestId
    }

    /// The same refusal about the subscription `requestId`.
    public func about(_ requestId: Int) -> LiveQueryRefusal {
        var refusal = self
        refusal.requestId = requestId
        return refusal
    }

    /// Code 1: a message that is not a request of the protocol (not JSON, a member missing or of the wrong type).
    public static func invalidRequest(_ message: String) -> LiveQueryRefusal {
        LiveQueryRefusal(code: 1, message: message)
    }

    /// Code 2: a request other than `connect` before the client connected.
    public static let notConnected = LiveQueryRefusal(
        code: 2, message: "Can not find this client, make sure you connect to server before subscribing")

    /// Code 3: an `op` the protocol does not have.
    public static let unknownOperation = LiveQueryRefusal(code: 3, message: "Get unknown operation")

    /// Code 4: an unknown application id, or keys the app does not accept.
    public static func invalidKey(_ message: String) -> LiveQueryRefusal {
        LiveQueryRefusal(code: 4, message: message)
    }

    /// The refusal of what a REST request by the same caller would be refused for.
    public init(_ error: ParseError, requestId: Int? = nil) {
        self.init(code: error.code, message: error.message, requestId: requestId)
    }

    /// The message that tells the client.
    public var json: ParseValue {
        var message: [String: ParseValue] = [
            "op": "error", "code": .number(Double(code)), "error": .string(self.message), "reconnect": .bool(reconnect),
        ]
        if let requestId { message["requestId"] = .number(Double(requestId)) }
        return .object(message)
    }
}
