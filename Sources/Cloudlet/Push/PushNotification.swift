import Foundation

/// A push notification a hook asks for: who receives it and what it says.
///
/// ```swift
/// try await request.push(PushNotification(toUsers: [recipientId], alert: "New message", data: ["threadId": .string(id)]))
///
/// var digest = PushNotification(toChannels: ["news"], alert: .init(title: "Today", body: "3 new stories"))
/// digest.badge = .increment(by: 1)
/// digest.sound = "default"
/// digest.threadId = "news"
/// digest.collapseId = "daily-digest"
/// digest.expiration = request.context.clock.now.addingTimeInterval(3600)
/// try await request.push(digest)
///
/// try await request.push(PushNotification(
///     audience: .installations(where: ["deviceType": "ios", "appVersion": ["$gte": "2.0"]]),
///     contentAvailable: true, data: ["sync": "inbox"]))
/// ```
/// Each notification becomes a job in `_PushStatus`, in Parse Server's shape (`query` and `payload`
/// as JSON text, `source` `hook`), with status `pending` — or `scheduled` when its `pushTime` is
/// still to come — from which the server's work queue sends it.
public struct PushNotification: Sendable, Hashable {
    /// Who receives a notification.
    public enum Audience: Sendable, Hashable {
        /// The installations of these users (by user id).
        case users([String])
        /// The installations subscribed to any of these channels.
        case channels([String])
        /// The installations matching a Parse `where` query on `_Installation` (any query operator).
        case installations(where: [String: ParseValue])

        /// The `where` on `_Installation` that selects the audience.
        public var query: [String: ParseValue] {
            switch self {
            case .users(let ids): ["user": ["$in": .array(ids.map { .pointer(className: "_User", objectId: $0) })]]
            case .channels(let names): ["channels": ["$in": .array(names.map(ParseValue.string))]]
            case .installations(let constraints): constraints
            }
        }
    }

    /// The text shown: a body, and optionally a title and the keys of localized strings the app
    /// carries (with their arguments). A string (interpolated or not) is a body alone.
    public struct Alert: Sendable, Hashable, ExpressibleByStringInterpolation {
        /// The title, above the body.
        public var title: String?
        /// The text.
        public var body: String?
        /// The key of the localized title in the app.
        public var titleLocKey: String?
        /// The values put into the localized title.
        public var titleLocArgs: [String]
        /// The key of the localized body in the app.
        public var locKey: String?
        /// The values put into the localized body.
        public var locArgs: [String]

        /// An alert with the given parts.
        public init(
            title: String? = nil, body: String? = nil, titleLocKey: String? = nil, titleLocArgs: [String] = [],
            locKey: String? = nil, locArgs: [String] = []
        ) {
            self.title = title
            self.body = body
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
        }

        /// An alert with this body alone.
        public init(stringLiteral body: String) {
            self.init(body: body)
        }

        /// Parse's `alert`: the body as a string when there is nothing else, else an object with
        /// APNs' keys (`title`, `body`, `title-loc-key`, `title-loc-args`, `loc-key`, `loc-args`).
        public var value: ParseValue {
            var members: [String: ParseValue] = [:]
            members["title"] = title.map(ParseValue.string)
            members["body"] = body.map(ParseValue.string)
            members["title-loc-key"] = titleLocKey.map(ParseValue.string)
            members["loc-key"] = locKey.map(ParseValue.string)
            if !titleLocArgs.isEmpty { members["title-loc-args"] = .array(titleLocArgs.map(ParseValue.string)) }
            if !locArgs.isEmpty { members["loc-args"] = .array(locArgs.map(ParseValue.string)) }
            if members.count == 1, let body { return .string(body) }
            return .object(members)
        }
    }

    /// The number on the app's icon.
    public enum Badge: Sendable, Hashable {
        /// Exactly this number.
        case set(Int)
        /// Each installation's own badge plus this amount (stored back on the installation).
        case increment(by: Int)

        /// Parse's `badge`: a number, `"Increment"`, or `{"__op": "Increment", "amount": n}` for n ≠ 1.
        public var value: ParseValue {
            switch self {
            case .set(let number): .number(Double(number))
            case .increment(by: 1): "Increment"
            case .increment(by: let amount): ["__op": "Increment", "amount": .number(Double(amount))]
            }
        }
    }

    /// Who receives it.
    public var audience: Audience
    /// The text shown, if any.
    public var alert: Alert?
    /// The icon's badge, if it changes.
    public var badge: Badge?
    /// The sound played (a file in the app, or `default`).
    public var sound: String?
    /// Wakes the app in the background to fetch content (`content-available: 1`).
    public var contentAvailable: Bool
    /// The notification's category, for its actions.
    public var category: String?
    /// Groups notifications of one thread together.
    public var threadId: String?
    /// The app's own payload keys.
    public var data: [String: ParseValue]
    /// When it stops being worth delivering.
    public var expiration: Date?
    /// Notifications with the same collapse id replace each other on the device. At most
    /// ``maximumCollapseIdBytes`` bytes, without control characters (see ``isValidCollapseId(_:)``).
    public var collapseId: String?
    /// When to send it; nil for now.
    public var pushTime: Date?

    /// A notification to the installations of `users`.
    public init(toUsers users: [String], alert: Alert? = nil, data: [String: ParseValue] = [:]) {
        self.init(audience: .users(users), alert: alert, data: data)
    }

    /// A notification to the installations subscribed to any of `channels`.
    public init(toChannels channels: [String], alert: Alert? = nil, data: [String: ParseValue] = [:]) {
        self.init(audience: .channels(channels), alert: alert, data: data)
    }

    /// A notification to `audience`.
    public init(
        audience: Audience, alert: Alert? = nil, badge: Badge? = nil, sound: String? = nil, contentAvailable: Bool = false,
        category: String? = nil, threadId: String? = nil, data: [String: ParseValue] = [:], expiration: Date? = nil,
        collapseId: String? = nil, pushTime: Date? = nil
    ) {
        self.audience = audience
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.contentAvailable = contentAvailable
        self.category = category
        self.threadId = threadId
        self.data = data
        self.expiration = expiration
        self.collapseId = collapseId
        self.pushTime = pushTime
    }

    /// Parse's push `data`: the app's keys, and the notification's own that are set (which win).
    public var payload: [String: ParseValue] {
        var own: [String: ParseValue] = [:]
        own["alert"] = alert?.value
        own["badge"] = badge?.value
        own["sound"] = sound.map(ParseValue.string)
        if contentAvailable { own["content-available"] = 1 }
        own["category"] = category.map(ParseValue.string)
        own["threadId"] = threadId.map(ParseValue.string)
        return data.merging(own) { _, notification in notification }
    }

    /// The fields of the job as `_PushStatus` stores it, sent at `now`.
    func jobFields(now: Date) -> [String: ParseValue] {
        var fields: [String: ParseValue] = [
            "status": .string(pushTime.map { $0 > now } == true ? "scheduled" : "pending"), "source": "hook",
            "query": .string(JSONWriter.string(.object(audience.query))), "payload": .string(JSONWriter.string(.object(payload))),
            "numSent": 0, "numFailed": 0,
        ]
        fields["pushTime"] = pushTime.map { .string(ParseDate.string(from: $0)) }
        fields["expiry"] = expiration.map { .number(($0.timeIntervalSince1970 * 1000).rounded()) }
        fields["collapseId"] = collapseId.map(ParseValue.string)
        return fields
    }
}

extension PushNotification {
    /// The longest collapse id APNs takes (it answers `BadCollapseId` past it).
    public static let maximumCollapseIdBytes = 64

    /// Whether every provider can take `collapseId`: at most ``maximumCollapseIdBytes`` bytes, and
    /// no control character (it travels as an HTTP header to APNs).
    public static func isValidCollapseId(_ collapseId: String) -> Bool {
        collapseId.utf8.count <= maximumCollapseIdBytes && collapseId.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }
}

extension HookRequest {
    /// Records a push job in `_PushStatus` (as the master key, readable by the master key only) and
    /// returns the job's id. From a before hook the job is stored with the object, in the same
    /// transaction, and not at all if the save fails. In an after hook the job carries the hook's
    /// `eventId`, and a replay of the hook after a crash finds the job it already recorded for the
    /// same audience instead of alerting anyone twice (so one hook run sends at most one
    /// notification per audience).
    ///
    /// A collapse id no provider could take is refused at once (115).
    @discardableResult
    public func push(_ notification: PushNotification) async throws -> String {
        if let collapseId = notification.collapseId, !PushNotification.isValidCollapseId(collapseId) {
            throw ParseError(
                code: 115, message: "collapseId must be at most \(PushNotification.maximumCollapseIdBytes) bytes without control characters")
        }
        var fields = notification.jobFields(now: context.clock.now)
        let store = context.store.asMaster
        if let eventId = context.eventId {
            fields["eventId"] = .string(eventId)
            let recorded = ParseQuery("_PushStatus")
                .whereKey("eventId", equalTo: .string(eventId))
                .whereKey("query", equalTo: fields["query"]!)
                .limit(1)
            if let job = try await store.find(recorded).first, let id = job.objectId { return id }
        }
        fields["requestId"] = .string(context.requestId)
        // An empty ACL: only the master key reads push jobs.
        let job = try await store.save(ParseObject(className: "_PushStatus", acl: ParseACL(), fields: fields))
        return job.objectId ?? ""
    }
}
