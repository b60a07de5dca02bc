import Cloudlet
import Foundation

/// Where a push job stands, as `_PushStatus.status` says it.
public enum PushJobStatus: String, Sendable, CaseIterable {
    /// Its `pushTime` is still to come.
    case scheduled
    /// Recorded, its fan-out not yet started.
    case pending
    /// Its deliveries are being made.
    case running
    /// Every delivery ended, and at least one was sent (or there was no recipient).
    case succeeded
    /// It could not be sent at all (a bad job, a payload too large, every delivery failed).
    case failed
    /// Its expiration came before it was sent.
    case expired
}

/// A push job as `_PushStatus` stores it, in Parse Server's shape: `status`, `source` (`rest` or
/// `hook`), `query` (the `_Installation` where, as a JSON string), `payload` (Parse's push `data`, as
/// a JSON string), `pushTime` (ISO 8601), `expiry` (milliseconds since 1970), and Cloudlet's
/// `collapseId`. Its delivery adds `count`, `numSent`, `numFailed`, `sentPerType`,
/// `failedPerType`, `failedPerReason` and `errorMessage` as it goes.
public struct PushJob: Sendable, Hashable {
    /// The `_PushStatus` object id.
    public var id: String
    public var status: PushJobStatus
    /// `rest` for `POST /push`, `hook` for `request.push`.
    public var source: String
    /// Which installations receive it: a Parse `where` on `_Installation`.
    public var query: [String: ParseValue]
    /// Parse's push `data` (alert, badge, sound, … and the app's own keys).
    public var data: [String: ParseValue]
    /// When to send it; nil for now.
    public var pushTime: Date?
    /// When it stops being worth sending.
    public var expiration: Date?
    /// Notifications with the same collapse id replace each other on the device.
    public var collapseId: String?

    public init(
        id: String, status: PushJobStatus, source: String, query: [String: ParseValue], data: [String: ParseValue],
        pushTime: Date? = nil, expiration: Date? = nil, collapseId: String? = nil
    ) {
        self.id = id
        self.status = status
        self.source = source
        self.query = query
        self.data = data
        self.pushTime = pushTime
        self.expiration = expiration
        self.collapseId = collapseId
    }

    /// The job stored in `object` (of `_PushStatus`). Throws 115 naming the field that is missing
    /// or malformed.
    public init(_ object: ParseObject) throws {
        func invalid(_ field: String) -> ParseError { ParseError(code: 115, message: "push job has an invalid \(field)") }
        guard let id = object.objectId else { throw invalid("objectId") }
        guard let status = object.fields["status"]?.stringValue.flatMap(PushJobStatus.init(rawValue:)) else { throw invalid("status") }
        guard let queryText = object.fields["query"]?.stringValue, let query = try? JSONParser.parse(queryText).objectValue
        else { throw invalid("query") }
        guard let payloadText = object.fields["payload"]?.stringValue, let data = try? JSONParser.parse(payloadText).objectValue
        else { throw invalid("payload") }
        var pushTime: Date?
        if let value = object.fields["pushTime"] {
            guard let date = value.stringValue.flatMap(ParseDate.date(from:)) else { throw invalid("pushTime") }
            pushTime = date
        }
        var expiration: Date?
        if let value = object.fields["expiry"] {
            guard let milliseconds = value.doubleValue else { throw invalid("expiry") }
            expiration = Date(timeIntervalSince1970: milliseconds / 1000)
        }
        self.init(
            id: id, status: status, source: object.fields["source"]?.stringValue ?? "rest", query: query, data: data,
            pushTime: pushTime, expiration: expiration, collapseId: object.fields["collapseId"]?.stringValue)
    }

    /// How much each installation's `badge` goes up, when the job's badge is Parse's `"Increment"`
    /// (1) or `{"__op": "Increment", "amount": n}` (n); nil when it sets a number or no badge.
    public var badgeIncrement: Int? {
        guard let badge = data["badge"] else { return nil }
        if badge.stringValue?.lowercased() == "increment" { return 1 }
        guard badge["__op"]?.stringValue?.lowercased() == "increment" else { return nil }
        return badge["amount"]?.intValue ?? 1
    }

    /// The fields of a new `_PushStatus` object for this job (its id aside).
    public var fields: [String: ParseValue] {
        var fields: [String: ParseValue] = [
            "status": .string(status.rawValue), "source": .string(source),
            "query": .string(JSONWriter.string(.object(query))), "payload": .string(JSONWriter.string(.object(data))),
            "numSent": 0, "numFailed": 0,
        ]
        if let pushTime { fields["pushTime"] = .string(ParseDate.string(from: pushTime)) }
        if let expiration { fields["expiry"] = .number((expiration.timeIntervalSince1970 * 1000).rounded()) }
        if let collapseId { fields["collapseId"] = .string(collapseId) }
        return fields
    }
}
