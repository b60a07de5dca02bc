import Cloudlet
import Foundation

/// Where an app's push notifications go, as the operator sets it in the registry's `push` member:
///
/// ```json
/// {"apns": {"keyFile": "/etc/cloudlet/AuthKey_ABC123.p8", "keyId": "ABC123", "teamId": "TEAM123456",
///           "topic": "com.example.app", "environment": "production"},
///  "fcm": {"serviceAccountFile": "/etc/cloudlet/firebase.json"},
///  "webhook": {"url": "https://gateway.example.com/push"},
///  "log": true, "caFile": "/etc/cloudlet/gateway-ca.pem"}
/// ```
///
/// Installations of device type `ios`, `tvos` and `osx` go to APNs, `android` to FCM, and every
/// other device type (or one whose provider is not set) to the webhook, else to the log provider
/// unless `log` is false. Keys stay in the files named here; the registry holds only their paths.
public struct PushSettings: Sendable, Hashable {
    /// Apple's push service with token authentication.
    public struct APNs: Sendable, Hashable {
        /// The `.p8` key file (a P-256 private key, PKCS#8 PEM).
        public var keyFile: String
        /// The key's id (the JWT's `kid`).
        public var keyId: String
        /// The Apple developer team id (the JWT's `iss`).
        public var teamId: String
        /// The app's bundle id (`apns-topic`).
        public var topic: String
        /// Production or sandbox.
        public var environment: APNsProvider.Environment
        /// Another base URL than the environment's (a local gateway); nil for the environment's.
        public var url: String?

        public init(keyFile: String, keyId: String, teamId: String, topic: String, environment: APNsProvider.Environment, url: String? = nil) {
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
            self.topic = topic
            self.environment = environment
            self.url = url
        }
    }

    /// Firebase Cloud Messaging's HTTP v1 API.
    public struct FCM: Sendable, Hashable {
        /// The service account's JSON key file.
        public var serviceAccountFile: String
        /// Another base URL than FCM's; nil for FCM's.
        public var url: String?

        public init(serviceAccountFile: String, url: String? = nil) {
            self.serviceAccountFile = serviceAccountFile
            self.url = url
        }
    }

    /// Device types sent through APNs.
    public static let apnsDeviceTypes = ["ios", "tvos", "osx"]
    /// Device types sent through FCM.
    public static let fcmDeviceTypes = ["android"]

    public var apns: APNs?
    public var fcm: FCM?
    /// The URL the webhook provider POSTs to.
    public var webhookURL: String?
    /// Whether device types with no other provider go to the log provider. Default true.
    public var log: Bool
    /// A PEM file of the certificates trusted for the providers' HTTPS connections instead of the
    /// system's (a private gateway's authority); nil for the system's.
    public var caFile: String?

    /// By default, every notification goes to the log provider.
    public init(apns: APNs? = nil, fcm: FCM? = nil, webhookURL: String? = nil, log: Bool = true, caFile: String? = nil) {
        self.apns = apns
        self.fcm = fcm
        self.webhookURL = webhookURL
        self.log = log
        self.caFile = caFile
    }

    /// The settings in `json`, checked for shape only (the files are read by
    /// ``PushProviders/init(settings:appId:clock:logger:)``). Throws 142 naming the member.
    public init(json: ParseValue) throws {
        guard let members = json.objectValue else { throw Self.invalid("push must be an object") }
        try Self.refuseUnknown(members, allowed: ["apns", "fcm", "webhook", "log", "caFile"], in: "push")
        self.init()
        if let apns = members["apns"], !apns.isNull {
            let object = try Self.object(apns, "push.apns", allowed: ["keyFile", "keyId", "teamId", "topic", "environment", "url"])
            let environmentName = try Self.string(object, "environment", in: "push.apns", required: false) ?? "production"
            guard let environment = APNsProvider.Environment(rawValue: environmentName) else {
                throw Self.invalid("push.apns.environment must be production or sandbox")
            }
            self.apns = APNs(
                keyFile: try Self.string(object, "keyFile", in: "push.apns")!, keyId: try Self.string(object, "keyId", in: "push.apns")!,
                teamId: try Self.string(object, "teamId", in: "push.apns")!, topic: try Self.string(object, "topic", in: "push.apns")!,
                environment: environment, url: try Self.url(object, "url", in: "push.apns", required: false, schemes: ["https"]))
        }
        if let fcm = members["fcm"], !fcm.isNull {
            let object = try Self.object(fcm, "push.fcm", allowed: ["serviceAccountFile", "url"])
            self.fcm = FCM(
                serviceAccountFile: try Self.string(object, "serviceAccountFile", in: "push.fcm")!,
                url: try Self.url(object, "url", in: "push.fcm", required: false, schemes: ["https"]))
        }
        if let webhook = members["webhook"], !webhook.isNull {
            webhookURL = try Self.url(try Self.object(webhook, "push.webhook", allowed: ["url"]), "url", in: "push.webhook")
        }
        if let log = members["log"] {
            guard let flag = log.boolValue else { throw Self.invalid("push.log must be true or false") }
            self.log = flag
        }
        caFile = try Self.string(members, "caFile", in: "push", required: false)
    }

    /// The settings as JSON, in the members ``init(json:)`` reads.
    public var json: ParseValue {
        var members: [String: ParseValue] = ["log": .bool(log)]
        if let apns {
            var object: [String: ParseValue] = [
                "keyFile": .string(apns.keyFile), "keyId": .string(apns.keyId), "teamId": .string(apns.teamId),
                "topic": .string(apns.topic), "environment": .string(apns.environment.rawValue),
            ]
            object["url"] = apns.url.map(ParseValue.string)
            members["apns"] = .object(object)
        }
        if let fcm {
            var object: [String: ParseValue] = ["serviceAccountFile": .string(fcm.serviceAccountFile)]
            object["url"] = fcm.url.map(ParseValue.string)
            members["fcm"] = .object(object)
        }
        if let webhookURL { members["webhook"] = ["url": .string(webhookURL)] }
        if let caFile { members["caFile"] = .string(caFile) }
        return .object(members)
    }

    static func refuseUnknown(_ object: [String: ParseValue], allowed: Set<String>, in path: String) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw invalid("\(path) has no member \(unknown)")
        }
    }

    static func object(_ value: ParseValue, _ path: String, allowed: Set<String>) throws -> [String: ParseValue] {
        guard let object = value.objectValue else { throw invalid("\(path) must be an object") }
        try refuseUnknown(object, allowed: allowed, in: path)
        return object
    }

    static func string(_ object: [String: ParseValue], _ name: String, in path: String, required: Bool = true) throws -> String? {
        guard let value = object[name], !value.isNull else {
            if required { throw invalid("\(path).\(name) is required") }
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 2048 else {
            throw invalid("\(path).\(name) must be a non-empty string")
        }
        return text
    }

    /// The URL `name` of `object`, which must use one of `schemes` (APNs and FCM speak HTTP/2 over
    /// TLS only; a webhook may be plain HTTP).
    static func url(
        _ object: [String: ParseValue], _ name: String, in path: String, required: Bool = true, schemes: [String] = ["http", "https"]
    ) throws -> String? {
        guard let text = try string(object, name, in: path, required: required) else { return nil }
        guard let url = URL(string: text), schemes.contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw invalid("\(path).\(name) must be an \(schemes.joined(separator: " or ")) URL")
        }
        return text
    }

    private static func invalid(_ message: String) -> ParseError { AppSettings.invalid(message) }
}
