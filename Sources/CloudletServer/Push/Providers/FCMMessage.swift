import Cloudlet
import CloudletRuntime
import Foundation

/// A message as FCM's HTTP v1 `messages:send` takes it, made from a ``PushMessage``: the token, a
/// `notification` (title and body) when Parse's `data` has an alert, every key of `data` as a
/// string in `data` (FCM takes only strings there; others as JSON), and the Android and APNs
/// overrides (priority, collapse key, time to live; the APNs headers and payload).
enum FCMMessage {
    static func body(for message: PushMessage, now: Date) -> [String: ParseValue] {
        let apns = APNsPayload(data: message.data)
        var fields: [String: ParseValue] = ["token": .string(message.token)]
        if let notification = notification(message.data) { fields["notification"] = .object(notification) }
        if !message.data.isEmpty {
            fields["data"] = .object(message.data.mapValues { .string($0.stringValue ?? JSONWriter.string($0)) })
        }
        var android: [String: ParseValue] = ["priority": apns.pushType == "background" ? "normal" : "high"]
        var apnsHeaders: [String: ParseValue] = ["apns-priority": .string(apns.priority), "apns-push-type": .string(apns.pushType)]
        if let collapseId = message.collapseId {
            android["collapse_key"] = .string(collapseId)
            apnsHeaders["apns-collapse-id"] = .string(collapseId)
        }
        if let expiration = message.expiration {
            android["ttl"] = .string("\(max(0, Int(expiration.timeIntervalSince(now).rounded(.down))))s")
            apnsHeaders["apns-expiration"] = .string(String(Int(expiration.timeIntervalSince1970.rounded(.down))))
        }
        fields["android"] = .object(android)
        fields["apns"] = ["headers": .object(apnsHeaders), "payload": .object(apns.json)]
        return ["message": .object(fields)]
    }

    /// FCM's `notification` from Parse's `alert` (a string, or an object with `title` and `body`) and `title`.
    private static func notification(_ data: [String: ParseValue]) -> [String: ParseValue]? {
        var notification: [String: ParseValue] = [:]
        switch data["alert"] {
        case .string(let body)?: notification["body"] = .string(body)
        case .object(let alert)?:
            notification["body"] = alert["body"]?.stringValue.map(ParseValue.string)
            notification["title"] = alert["title"]?.stringValue.map(ParseValue.string)
        default: break
        }
        if let title = data["title"]?.stringValue { notification["title"] = .string(title) }
        return notification.isEmpty ? nil : notification
    }
}
