import Cloudlet
import CloudletRuntime
import Foundation
import HTTPTypes

extension ParseAPI {
    /// The header `POST /push` answers the new job's id in.
    static let pushStatusIdHeader = HTTPField.Name("X-Parse-Push-Status-Id")!

    /// `POST /push` with the master key, in Parse's body shape: `channels` or `where`, `data`,
    /// `push_time`, `expiration_time` or `expiration_interval`. Records a `rest` job in
    /// `_PushStatus` (pending, or scheduled for a `push_time` to come) and answers
    /// `{"result": true}` with its id in `X-Parse-Push-Status-Id`.
    func sendPush(_ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else {
            throw ParseError.masterKeyRequired
        }
        let runtime = call.app.runtime
        let request = try PushRequest(call.body, now: runtime.context.clock.now)
        // The query must run: a bad operator answers its code (102, …) before anything is recorded.
        _ = try await runtime.reads.count(ParseQuery(SystemClass.installation.name, constraints: request.query), caller: call.caller)
        let job = PushJob(
            id: "", status: request.pushTime.map { $0 > runtime.context.clock.now } == true ? .scheduled : .pending, source: "rest",
            query: request.query, data: request.data, pushTime: request.pushTime, expiration: request.expiration)
        var fields = job.fields
        fields["ACL"] = ParseACL().json
        let saved = try await runtime.writes.create(SystemClass.pushStatus.name, body: fields, caller: call.caller)
        return Reply(body: ["result": true], headers: [Self.pushStatusIdHeader: saved.object.objectId ?? ""])
    }
}

/// The body of `POST /push`, checked as Parse Server checks it (115 for a push it cannot send,
/// 111 for a member of the wrong type).
struct PushRequest {
    /// The `where` on `_Installation`.
    var query: [String: ParseValue]
    /// Parse's push data.
    var data: [String: ParseValue]
    /// `push_time`, if given.
    var pushTime: Date?
    /// From `expiration_time`, or `expiration_interval` after the push time.
    var expiration: Date?

    /// The request in `body`, with intervals counted from `now` when no push time is given.
    init(_ body: [String: ParseValue], now: Date) throws {
        switch (body["where"], body["channels"]) {
        case (.some, .some):
            throw ParseError(code: 115, message: "Channels and query can not be set at the same time.")
        case (.some(let constraints), .none):
            guard let constraints = constraints.objectValue else { throw ParseError.incorrectType("where must be an object") }
            query = constraints
        case (.none, .some(let channels)):
            guard let names = channels.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                throw ParseError.incorrectType("channels must be an array of strings")
            }
            query = ["channels": ["$in": .array(names)]]
        case (.none, .none):
            throw ParseError(code: 115, message: #"Sending a push requires either "channels" or a "where" query."#)
        }
        guard let data = body["data"] else { throw ParseError(code: 115, message: "Sending a push requires data.") }
        guard let members = data.objectValue else { throw ParseError.incorrectType("data must be an object") }
        if let badge = members["badge"] { try Self.checkBadge(badge) }
        self.data = members
        pushTime = try body["push_time"].map { try Self.date($0, "push_time") }
        switch (body["expiration_time"], body["expiration_interval"]) {
        case (.some, .some):
            throw ParseError(code: 115, message: "Both expiration_time and expiration_interval cannot be set.")
        case (.some(let time), .none):
            expiration = try Self.date(time, "expiration_time")
        case (.none, .some(let interval)):
            guard let seconds = interval.doubleValue, seconds > 0 else {
                throw ParseError(code: 115, message: "expiration_interval must be a number greater than 0")
            }
            expiration = (pushTime ?? now).addingTimeInterval(seconds)
        case (.none, .none):
            expiration = nil
        }
    }

    /// A time given as an ISO 8601 string or as seconds since 1970.
    private static func date(_ value: ParseValue, _ name: String) throws -> Date {
        if let seconds = value.doubleValue { return Date(timeIntervalSince1970: seconds) }
        guard let text = value.stringValue else { throw ParseError.incorrectType("\(name) must be an ISO 8601 date or a number") }
        if let date = ParseDate.date(from: text) { return date }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        throw ParseError(code: 115, message: "\(name) is not a valid time: \(text)")
    }

    /// `badge` is a number, `"Increment"`, or `{"__op": "Increment", "amount": n}`.
    private static func checkBadge(_ badge: ParseValue) throws {
        if badge.doubleValue != nil || badge.stringValue?.lowercased() == "increment" { return }
        if badge["__op"]?.stringValue?.lowercased() == "increment", badge["amount"]?.doubleValue != nil { return }
        throw ParseError.incorrectType("badge must be a number, \"Increment\" or an Increment operation")
    }
}
