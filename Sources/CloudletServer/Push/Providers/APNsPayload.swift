import Cloudlet

/// A notification as APNs takes it, made from Parse's push `data`: the `aps` dictionary (alert,
/// badge, sound, content-available, mutable-content, category, thread-id) and the app's other
/// keys at the top level.
struct APNsPayload {
    /// Parse keys that go into `aps` under the same name.
    private static let apsKeys = ["badge", "sound", "content-available", "mutable-content", "category", "thread-id"]

    /// The JSON body.
    var json: [String: ParseValue]
    /// `alert`, or `background` for a notification that only sets `content-available`.
    var pushType: String

    init(data: [String: ParseValue]) {
        var aps: [String: ParseValue] = [:]
        var json = data
        let title = json.removeValue(forKey: "title")
        switch json.removeValue(forKey: "alert") {
        case .string(let body)?:
            aps["alert"] = title.map { ["title": $0, "body": .string(body)] } ?? .string(body)
        case .object(let alert)?:
            aps["alert"] = .object(alert.merging(title.map { ["title": $0] } ?? [:]) { given, _ in given })
        default:
            if let title { aps["alert"] = ["title": title] }
        }
        for key in Self.apsKeys {
            guard let value = json.removeValue(forKey: key) else { continue }
            aps[key] = value.boolValue.map { .number($0 ? 1 : 0) } ?? value
        }
        json["aps"] = .object(aps)
        self.json = json
        let isBackground = aps.keys.allSatisfy { $0 == "content-available" } && aps["content-available"]?.intValue == 1
        pushType = isBackground ? "background" : "alert"
    }

    /// `apns-priority`: 10 (at once) for alerts, 5 (when the device sees fit) for background pushes.
    var priority: String { pushType == "background" ? "5" : "10" }
}
