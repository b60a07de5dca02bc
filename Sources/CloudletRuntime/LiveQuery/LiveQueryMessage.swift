import Cloudlet

/// The messages a LiveQuery server sends, as Parse Server writes them: each names its `op`, the
/// client's id and, when the client gave one, its installation id.
public enum LiveQueryMessage {
    /// The answer to a `connect` that was accepted.
    public static func connected(clientId: String, installationId: String?) -> [UInt8] {
        bytes("connected", clientId: clientId, installationId: installationId)
    }

    /// The answer to a `subscribe` or an `update` that was accepted.
    public static func subscribed(clientId: String, requestId: Int, installationId: String?) -> [UInt8] {
        bytes("subscribed", clientId: clientId, installationId: installationId, requestId: requestId)
    }

    /// The answer to an `unsubscribe`.
    public static func unsubscribed(clientId: String, requestId: Int, installationId: String?) -> [UInt8] {
        bytes("unsubscribed", clientId: clientId, installationId: installationId, requestId: requestId)
    }

    /// A refusal.
    public static func error(_ refusal: LiveQueryRefusal) -> [UInt8] {
        JSONWriter.bytes(refusal.json)
    }

    /// `event` of the subscription `requestId`: the object, and the object before the write for
    /// the events that carry it.
    public static func event(
        _ event: LiveEvent, clientId: String, requestId: Int, installationId: String?, object: ParseValue, original: ParseValue?
    ) -> [UInt8] {
        var extra: [String: ParseValue] = ["object": object]
        if event.carriesOriginal, let original { extra["original"] = original }
        return bytes(event.rawValue, clientId: clientId, installationId: installationId, requestId: requestId, extra: extra)
    }

    private static func bytes(
        _ op: String, clientId: String, installationId: String?, requestId: Int? = nil, extra: [String: ParseValue] = [:]
    ) -> [UInt8] {
        var message = extra
        message["op"] = .string(op)
        message["clientId"] = .string(clientId)
        if let installationId { message["installationId"] = .string(installationId) }
        if let requestId { message["requestId"] = .number(Double(requestId)) }
        return JSONWriter.bytes(.object(message))
    }
}
