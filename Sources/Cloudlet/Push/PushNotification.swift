/// A push notification a hook asks for: who receives it and what it says.
///
/// ```swift
/// try await request.push(PushNotification(toUsers: [recipientId], alert: "New message", data: ["threadId": .string(id)]))
/// try await request.push(PushNotification(toChannels: ["notifications"], data: ["type": "blog"]))
/// ```
/// Each notification becomes a job in `_PushStatus` with status `pending`, from which the push
/// delivery service sends it.
public struct PushNotification: Sendable, Hashable {
    /// Who receives a notification.
    public enum Audience: Sendable, Hashable {
        /// The installations of these users (by user id).
        case users([String])
        /// The installations subscribed to these channels.
        case channels([String])
        /// The installations matching a Parse `where` query on `_Installation`.
        case installations(where: [String: ParseValue])
    }

    /// Who receives it.
    public var audience: Audience
    /// The text shown, if any.
    public var alert: String?
    /// The app's own payload.
    public var data: [String: ParseValue]

    /// A notification to the installations of `users`.
    public init(toUsers users: [String], alert: String? = nil, data: [String: ParseValue] = [:]) {
        self.init(audience: .users(users), alert: alert, data: data)
    }

    /// A notification to the installations subscribed to `channels`.
    public init(toChannels channels: [String], alert: String? = nil, data: [String: ParseValue] = [:]) {
        self.init(audience: .channels(channels), alert: alert, data: data)
    }

    /// A notification to `audience`.
    public init(audience: Audience, alert: String? = nil, data: [String: ParseValue] = [:]) {
        self.audience = audience
        self.alert = alert
        self.data = data
    }

    /// The job as stored in `_PushStatus`.
    var jobFields: [String: ParseValue] {
        let target: ParseValue
        switch audience {
        case .users(let ids): target = ["users": .array(ids.map(ParseValue.string))]
        case .channels(let names): target = ["channels": .array(names.map(ParseValue.string))]
        case .installations(let constraints): target = ["where": .object(constraints)]
        }
        var payload = data
        if let alert { payload["alert"] = .string(alert) }
        return ["status": "pending", "audience": target, "payload": .object(payload)]
    }
}

extension HookRequest {
    /// Records a push job in `_PushStatus` (as the master key, readable by the master key only) and
    /// returns the job's id. In an after hook the job carries the hook's `eventId`, and a replay of
    /// the hook after a crash finds the job it already recorded for the same audience instead of
    /// alerting anyone twice (so one hook run sends at most one notification per audience).
    @discardableResult
    public func push(_ notification: PushNotification) async throws -> String {
        var fields = notification.jobFields
        let store = context.store.asMaster
        if let eventId = context.eventId {
            fields["eventId"] = .string(eventId)
            let recorded = ParseQuery("_PushStatus")
                .whereKey("eventId", equalTo: .string(eventId))
                .whereKey("audience", equalTo: fields["audience"]!)
                .limit(1)
            if let job = try await store.find(recorded).first, let id = job.objectId { return id }
        }
        fields["requestId"] = .string(context.requestId)
        // An empty ACL: only the master key reads push jobs.
        let job = try await store.save(ParseObject(className: "_PushStatus", acl: ParseACL(), fields: fields))
        return job.objectId ?? ""
    }
}
