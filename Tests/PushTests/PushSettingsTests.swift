import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Logging
import PushStandIns
import Testing

@Suite struct PushSettingsTests {
    private static func pushJSON(_ keys: PushTestKeys, serviceAccount: String) -> ParseValue {
        [
            "apns": [
                "keyFile": .string(keys.apnsKeyFile), "keyId": "TESTKEY123", "teamId": "TEAM123456", "topic": "com.example.app",
                "environment": "sandbox",
            ],
            "fcm": ["serviceAccountFile": .string(serviceAccount)],
            "webhook": ["url": "https://gateway.example.com/push"],
            "log": false,
        ]
    }

    @Test func pushSettingsRoundTripThroughTheRegistry() async throws {
        let keys = try PushTestKeys()
        defer { keys.remove() }
        let account = try keys.writeServiceAccount(projectId: "p", clientEmail: "a@p.iam.gserviceaccount.com", tokenURI: "https://oauth2.googleapis.com/token")
        let settings = try AppSettings().applying(["push": Self.pushJSON(keys, serviceAccount: account)])
        #expect(settings.push.apns?.environment == .sandbox)
        #expect(settings.push.fcm?.serviceAccountFile == account)
        #expect(settings.push.webhookURL == "https://gateway.example.com/push")
        #expect(settings.push.log == false)
        #expect(try PushSettings(json: settings.push.json) == settings.push)
        let registry = try AppRegistry(dataDirectory: keys.folder.appendingPathComponent("data").path)
        _ = try await registry.create("shop", settings: settings)
        #expect(try await registry.app("shop")?.settings.push == settings.push)
        try await registry.update("shop") { $0.push = PushSettings() }
        #expect(try await registry.app("shop")?.settings.push == PushSettings())
    }

    @Test func anUnreadableKeyFileIsRefusedNamingItsMember() throws {
        let keys = try PushTestKeys()
        defer { keys.remove() }
        let missing = keys.folder.appendingPathComponent("missing.p8").path
        let apns: ParseValue = ["apns": ["keyFile": .string(missing), "keyId": "K", "teamId": "T", "topic": "com.example.app"]]
        #expect(throws: ParseError(code: 142, message: "push.apns.keyFile: cannot read \(missing)", httpStatus: 400)) {
            try AppSettings().applying(["push": apns])
        }
        let notAKey = keys.folder.appendingPathComponent("not-a-key.p8").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notAKey))
        let fcm: ParseValue = ["fcm": ["serviceAccountFile": .string(notAKey)]]
        #expect(throws: ParseError(code: 142, message: "push.fcm.serviceAccountFile: \(notAKey) is not a JSON object", httpStatus: 400)) {
            try AppSettings().applying(["push": fcm])
        }
    }

    static let malformed: [(ParseValue, String)] = [
        (ParseValue.string("apns"), "push must be an object"),
        (["apns": ["keyFile": "/k.p8", "keyId": "K", "teamId": "T"]], "push.apns.topic is required"),
        (["apns": ["keyFile": "/k.p8", "keyId": "K", "teamId": "T", "topic": "t", "environment": "staging"]],
         "push.apns.environment must be production or sandbox"),
        (["webhook": ["url": "ftp://gateway"]], "push.webhook.url must be an http or https URL"),
        (["apns": ["keyFile": "/k.p8", "keyId": "K", "teamId": "T", "topic": "t", "environment": "sandbox", "url": "http://gateway"]],
         "push.apns.url must be an https URL"),
        (["fcm": ["serviceAccountFile": "/a.json", "url": "http://gateway"]], "push.fcm.url must be an https URL"),
        (["log": "yes"], "push.log must be true or false"),
        (["email": true], "push has no member email"),
    ]

    @Test(arguments: PushSettingsTests.malformed)
    func malformedPushSettingsAreRefused(json: ParseValue, message: String) {
        #expect(throws: ParseError(code: 142, message: message, httpStatus: 400)) { try AppSettings().applying(["push": json]) }
    }

    @Test func deviceTypesGoToTheirProviders() async throws {
        let keys = try PushTestKeys()
        defer { keys.remove() }
        let account = try keys.writeServiceAccount(projectId: "p", clientEmail: "a@p.iam.gserviceaccount.com", tokenURI: "https://oauth2.googleapis.com/token")
        let settings = try PushSettings(json: Self.pushJSON(keys, serviceAccount: account))
        let providers = try PushProviders(settings: settings, appId: "shop", clock: ManualClock(), logger: Logger(label: "test.push"))
        for deviceType in ["ios", "tvos", "osx"] { #expect(providers.provider(for: deviceType) is APNsProvider) }
        #expect(providers.provider(for: "android") is FCMProvider)
        #expect(providers.provider(for: "web") is WebhookPushProvider)
        #expect(providers.provider(for: "win") is WebhookPushProvider)
        await providers.shutdown()

        let logOnly = try PushProviders(settings: PushSettings(), appId: "shop", clock: ManualClock(), logger: Logger(label: "test.push"))
        for deviceType in ["ios", "android", "web"] { #expect(logOnly.provider(for: deviceType) is LogPushProvider) }
        let none = try PushProviders(settings: PushSettings(log: false), appId: "shop", clock: ManualClock(), logger: Logger(label: "test.push"))
        #expect(none.provider(for: "ios") == nil)
    }
}
