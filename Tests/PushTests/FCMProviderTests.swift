import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Logging
import PushStandIns
import Testing
import _CryptoExtras

/// An FCM provider and the FCM stand-in, sharing a manual clock.
struct FCMFixture {
    static let token = "fcm-token-1"
    let keys: PushTestKeys
    let clock = ManualClock()
    let fcm: FCMStandIn
    let provider: FCMProvider

    init(rejectedKey: Bool = false) async throws {
        keys = try PushTestKeys()
        let clock = clock
        let publicKey = rejectedKey ? try PushTestKeys().serviceAccountKey.publicKey : keys.serviceAccountKey.publicKey
        fcm = try await FCMStandIn(
            projectId: "demo-project", clientEmail: "push@demo-project.iam.gserviceaccount.com", publicKey: publicKey, now: { clock.now })
        let file = try keys.writeServiceAccount(
            projectId: "demo-project", clientEmail: "push@demo-project.iam.gserviceaccount.com", tokenURI: fcm.server.url + "/token")
        provider = FCMProvider(
            account: try FCMServiceAccount(contentsOfFile: file), baseURL: fcm.server.url, trustRoots: fcm.server.trustRoots, clock: clock,
            logger: Logger(label: "test.push"))
    }

    func message(_ data: [String: ParseValue] = ["alert": "Hi"]) -> PushMessage {
        PushMessage(id: UUID().uuidString, deviceType: "android", token: FCMFixture.token, data: data)
    }

    func close() async throws {
        await provider.shutdown()
        try await fcm.stop()
        keys.remove()
    }
}

@Suite struct FCMProviderTests {
    @Test func aMessageCarriesNotificationDataAndOverrides() async throws {
        let fixture = try await FCMFixture()
        var message = fixture.message(["alert": "Hello", "title": "News", "badge": 2, "story": "s1"])
        message.collapseId = "story-s1"
        message.expiration = fixture.clock.now + 600
        #expect(await fixture.provider.send(message) == .sent)
        let sent = try #require(fixture.fcm.accepted.first)
        #expect(sent["token"] == .string(FCMFixture.token))
        #expect(sent["notification"] == ["title": "News", "body": "Hello"])
        #expect(sent["data"] == ["alert": "Hello", "title": "News", "badge": "2", "story": "s1"])
        #expect(sent["android"] == ["priority": "high", "collapse_key": "story-s1", "ttl": "600s"])
        let apns = try #require(sent["apns"]?.objectValue)
        #expect(apns["headers"]?.objectValue?["apns-collapse-id"] == "story-s1")
        #expect(apns["payload"]?.objectValue?["aps"]?.objectValue?["badge"] == 2)
        try await fixture.close()
    }

    @Test func theAccessTokenIsCachedAndRefreshedBeforeItExpires() async throws {
        let fixture = try await FCMFixture()
        for _ in 0..<3 { #expect(await fixture.provider.send(fixture.message()) == .sent) }
        #expect(fixture.fcm.exchanges == 1)
        fixture.clock.advance(by: .seconds(50 * 60))
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.fcm.exchanges == 1)
        fixture.clock.advance(by: .seconds(6 * 60))
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.fcm.exchanges == 2)
        try await fixture.close()
    }

    @Test func aRefusedAccessTokenIsReplacedAndTheMessageTriedOnceMore() async throws {
        let fixture = try await FCMFixture()
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        fixture.fcm.revokeAccessTokens()
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.fcm.exchanges == 2)
        #expect(fixture.fcm.acceptedCount == 2)
        try await fixture.close()
    }

    @Test func anAssertionGoogleRefusesFailsTheJob() async throws {
        let fixture = try await FCMFixture(rejectedKey: true)
        let outcome = await fixture.provider.send(fixture.message())
        #expect(outcome == .jobFailed(reason: "the OAuth token exchange failed: Invalid JWT Signature."))
        try await fixture.close()
    }

    @Test(arguments: [
        (FCMStandIn.Answer.error("UNREGISTERED"), PushOutcome.invalidToken(reason: "UNREGISTERED")),
        (.error("INVALID_ARGUMENT"), .invalidToken(reason: "INVALID_ARGUMENT")),
        (.error("QUOTA_EXCEEDED", retryAfter: 30), .retry(reason: "QUOTA_EXCEEDED", retryAfter: .seconds(30))),
        (.error("UNAVAILABLE", retryAfter: 10), .retry(reason: "UNAVAILABLE", retryAfter: .seconds(10))),
        (.error("INTERNAL"), .retry(reason: "INTERNAL")),
        (.error("SENDER_ID_MISMATCH"), .failed(reason: "SENDER_ID_MISMATCH")),
        (.error("THIRD_PARTY_AUTH_ERROR"), .failed(reason: "THIRD_PARTY_AUTH_ERROR")),
    ])
    func eachFcmErrorMapsToItsOutcome(answer: FCMStandIn.Answer, outcome: PushOutcome) async throws {
        let fixture = try await FCMFixture()
        fixture.fcm.queue([answer], for: FCMFixture.token)
        #expect(await fixture.provider.send(fixture.message()) == outcome)
        // A third-party auth error is the message's, not the access token's: no new token.
        #expect(fixture.fcm.exchanges == 1)
        try await fixture.close()
    }
}
