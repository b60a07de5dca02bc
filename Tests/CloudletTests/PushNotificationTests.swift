import Cloudlet
import Testing

/// A ``PushNotification``'s audience as a query and its payload as Parse's push `data`.
@Suite struct PushNotificationTests {
    @Test func audiencesAreQueriesOnInstallations() {
        #expect(PushNotification.Audience.users(["u1"]).query == ["user": ["$in": [.pointer(className: "_User", objectId: "u1")]]])
        #expect(PushNotification.Audience.channels(["a", "b"]).query == ["channels": ["$in": ["a", "b"]]])
        #expect(PushNotification.Audience.installations(where: ["deviceType": "ios"]).query == ["deviceType": "ios"])
    }

    @Test func thePayloadKeepsTheAppsKeysUnlessTheNotificationSetsThem() {
        var notification = PushNotification(toChannels: ["a"], alert: "Hi", data: ["threadId": "t-app", "sound": "app.caf", "x": 1])
        #expect(notification.payload == ["alert": "Hi", "threadId": "t-app", "sound": "app.caf", "x": 1])
        notification.sound = "default"
        notification.badge = .set(0)
        notification.contentAvailable = true
        #expect(notification.payload == ["alert": "Hi", "threadId": "t-app", "sound": "default", "x": 1, "badge": 0, "content-available": 1])
        notification.alert = .init(title: "T", body: "B", titleLocKey: "TK", titleLocArgs: ["1"], locKey: "K", locArgs: ["2"])
        #expect(notification.payload["alert"] == ["title": "T", "body": "B", "title-loc-key": "TK", "title-loc-args": ["1"], "loc-key": "K", "loc-args": ["2"]])
        #expect(PushNotification.Badge.increment(by: 1).value == "Increment")
        #expect(PushNotification.Badge.increment(by: 2).value == ["__op": "Increment", "amount": 2])
    }
}
