import Cloudlet
import CloudletServer
import CloudletTesting
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import PushStandIns
import Testing

/// An APNs provider and the APNs stand-in, sharing a manual clock.
struct APNsFixture {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    let keys: PushTestKeys
    let clock = ManualClock()
    let apns: APNsStandIn
    let provider: APNsProvider

    /// The stand-in answers each notification `responseDelay` after it arrives.
    /// The provider sends with `topic` (the stand-in's own is `com.example.app`).
    init(signingKey: P256SigningKeyChoice = .theStandInsKey, responseDelay: TimeAmount = .zero, topic: String = "com.example.app") async throws {
        keys = try PushTestKeys()
        let clock = clock
        apns = try await APNsStandIn(
            publicKey: keys.apnsKey.publicKey, keyId: "TESTKEY123", teamId: "TEAM123456", topic: "com.example.app", now: { clock.now },
            responseDelay: responseDelay)
        let key = signingKey == .theStandInsKey ? keys.apnsKey : .init()
        provider = APNsProvider(
            key: key, keyId: "TESTKEY123", teamId: "TEAM123456", topic: topic, baseURL: apns.server.url,
            trustRoots: apns.server.trustRoots, clock: clock)
    }

    func message(_ data: [String: ParseValue] = ["alert": "Hi"], token: String = APNsFixture.token) -> PushMessage {
        PushMessage(id: UUID().uuidString, deviceType: "ios", token: token, data: data)
    }

    func close() async throws {
        await provider.shutdown()
        try await apns.stop()
        keys.remove()
    }
}

enum P256SigningKeyChoice { case theStandInsKey, anotherKey }

@Suite struct APNsProviderTests {
    @Test func anAlertCarriesApplesHeadersAndPayload() async throws {
        let fixture = try await APNsFixture()
        let expiration = Date(timeIntervalSince1970: 1_800_000_000)
        var message = fixture.message(["alert": "Hello", "title": "News", "badge": 3, "sound": "default", "story": "s1"])
        message.expiration = expiration
        message.collapseId = "story-s1"
        #expect(await fixture.provider.send(message) == .sent)
        let sent = try #require(fixture.apns.accepted.first)
        #expect(sent.token == APNsFixture.token)
        #expect(sent.headers.first(name: "apns-id") == message.id)
        #expect(sent.headers.first(name: "apns-topic") == "com.example.app")
        #expect(sent.headers.first(name: "apns-push-type") == "alert")
        #expect(sent.headers.first(name: "apns-priority") == "10")
        #expect(sent.headers.first(name: "apns-expiration") == "1800000000")
        #expect(sent.headers.first(name: "apns-collapse-id") == "story-s1")
        #expect(sent.json["aps"] == ["alert": ["title": "News", "body": "Hello"], "badge": 3, "sound": "default"])
        #expect(sent.json["story"] == "s1")
        #expect(sent.json["title"] == nil)
        try await fixture.close()
    }

    @Test func aContentAvailableOnlyPushIsABackgroundPush() async throws {
        let fixture = try await APNsFixture()
        #expect(await fixture.provider.send(fixture.message(["content-available": 1, "refresh": true])) == .sent)
        let sent = try #require(fixture.apns.accepted.first)
        #expect(sent.headers.first(name: "apns-push-type") == "background")
        #expect(sent.headers.first(name: "apns-priority") == "5")
        #expect(sent.headers.first(name: "apns-expiration") == "0")
        #expect(sent.headers.first(name: "apns-collapse-id") == nil)
        #expect(sent.json == ["aps": ["content-available": 1], "refresh": true])
        try await fixture.close()
    }

    @Test func theProviderTokenIsMadeOnceAndRenewedAfterFiftyMinutes() async throws {
        let fixture = try await APNsFixture()
        for _ in 0..<3 { #expect(await fixture.provider.send(fixture.message()) == .sent) }
        fixture.clock.advance(by: .seconds(45 * 60))
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.apns.tokenUpdates == 1)
        fixture.clock.advance(by: .seconds(6 * 60))
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.apns.tokenUpdates == 2)
        try await fixture.close()
    }

    @Test func expiredProviderTokenGetsANewTokenAndOneMoreTry() async throws {
        let fixture = try await APNsFixture()
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        fixture.clock.advance(by: .seconds(25 * 60))
        fixture.apns.queue([.reject(status: 403, reason: "ExpiredProviderToken")], for: APNsFixture.token)
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.apns.tokenUpdates == 2)
        // Only one more try: a second refusal is the outcome.
        fixture.clock.advance(by: .seconds(25 * 60))
        fixture.apns.queue(Array(repeating: .reject(status: 403, reason: "ExpiredProviderToken"), count: 2), for: APNsFixture.token)
        #expect(await fixture.provider.send(fixture.message()) == .retry(reason: "ExpiredProviderToken"))
        #expect(fixture.apns.tokenUpdates == 3)
        try await fixture.close()
    }

    @Test func aTokenYoungerThanTwentyMinutesIsNeverReplaced() async throws {
        let fixture = try await APNsFixture()
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        fixture.clock.advance(by: .seconds(10 * 60))
        fixture.apns.queue([.reject(status: 403, reason: "ExpiredProviderToken")], for: APNsFixture.token)
        #expect(await fixture.provider.send(fixture.message()) == .retry(reason: "ExpiredProviderToken"))
        #expect(fixture.apns.tokenUpdates == 1)
        try await fixture.close()
    }

    @Test(arguments: [
        (APNsStandIn.Answer.reject(status: 400, reason: "BadDeviceToken"), PushOutcome.invalidToken(reason: "BadDeviceToken")),
        (.reject(status: 400, reason: "DeviceTokenNotForTopic"), .invalidToken(reason: "DeviceTokenNotForTopic")),
        (.unregistered(at: Date(timeIntervalSince1970: 1_767_000_000)),
         .invalidToken(reason: "Unregistered", unregisteredAt: Date(timeIntervalSince1970: 1_767_000_000))),
        (.reject(status: 410, reason: "ExpiredToken"), .invalidToken(reason: "ExpiredToken")),
        (.reject(status: 413, reason: "PayloadTooLarge"), .jobFailed(reason: "PayloadTooLarge")),
        (.reject(status: 429, reason: "TooManyRequests", retryAfter: 7), .retry(reason: "TooManyRequests", retryAfter: .seconds(7))),
        (.reject(status: 503, reason: "ServiceUnavailable"), .retry(reason: "ServiceUnavailable")),
        (.reject(status: 500, reason: "InternalServerError"), .retry(reason: "InternalServerError")),
        (.reject(status: 400, reason: "BadTopic"), .failed(reason: "BadTopic")),
    ])
    func eachAnswerOfApnsMapsToItsOutcome(answer: APNsStandIn.Answer, outcome: PushOutcome) async throws {
        let fixture = try await APNsFixture()
        fixture.apns.queue([answer], for: APNsFixture.token)
        #expect(await fixture.provider.send(fixture.message()) == outcome)
        try await fixture.close()
    }

    @Test func aPayloadOverFourKilobytesFailsTheJobWithoutARequest() async throws {
        let fixture = try await APNsFixture()
        let outcome = await fixture.provider.send(fixture.message(["alert": .string(String(repeating: "x", count: 4100))]))
        #expect(outcome == .jobFailed(reason: "PayloadTooLarge"))
        #expect(fixture.apns.server.streamCount == 0)
        try await fixture.close()
    }

    @Test(arguments: [String(repeating: "c", count: 65), "digest\r\napns-topic: other"])
    func aCollapseIdApnsWouldRefuseFailsTheJobWithoutARequest(collapseId: String) async throws {
        let fixture = try await APNsFixture()
        var message = fixture.message()
        message.collapseId = collapseId
        #expect(await fixture.provider.send(message) == .jobFailed(reason: "BadCollapseId"))
        #expect(fixture.apns.server.streamCount == 0)
        message.collapseId = String(repeating: "c", count: 64)
        #expect(await fixture.provider.send(message) == .sent)
        try await fixture.close()
    }

    @Test func aHeaderHttp2CannotCarryFailsTheJobInsteadOfBeingRetried() async throws {
        let fixture = try await APNsFixture(topic: "com.example.app\r\napns-priority: 10")
        let outcome = await fixture.provider.send(fixture.message())
        #expect(outcome == .jobFailed(reason: "InvalidHeader"))
        #expect(fixture.apns.server.streamCount == 0)
        try await fixture.close()
    }

    @Test func aTokenThatIsNotHexIsRefusedWithoutARequest() async throws {
        let fixture = try await APNsFixture()
        #expect(await fixture.provider.send(fixture.message(token: "../../3/device/x")) == .invalidToken(reason: "BadDeviceToken"))
        #expect(fixture.apns.server.streamCount == 0)
        try await fixture.close()
    }

    @Test func aTokenSignedWithAnotherKeyIsRefusedByApns() async throws {
        let fixture = try await APNsFixture(signingKey: .anotherKey)
        #expect(await fixture.provider.send(fixture.message()) == .failed(reason: "InvalidProviderToken"))
        #expect(fixture.apns.acceptedCount == 0)
        try await fixture.close()
    }

    @Test func sendsOneAtATimeKeepOneConnection() async throws {
        let fixture = try await APNsFixture()
        for _ in 0..<20 { #expect(await fixture.provider.send(fixture.message()) == .sent) }
        #expect(fixture.apns.server.connectionCount == 1)
        #expect(fixture.apns.server.streamCount == 20)
        try await fixture.close()
    }

    @Test func fiveHundredConcurrentSendsShareTheProvidersFewConnections() async throws {
        // Answers 200 ms late: every send awaits its answer while the others are made.
        let fixture = try await APNsFixture(responseDelay: .milliseconds(200))
        let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
            for _ in 0..<500 { group.addTask { await fixture.provider.send(fixture.message()) } }
            return await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.count == 500 && outcomes.allSatisfy { $0 == .sent })
        #expect(fixture.apns.acceptedCount == 500)
        // The provider's default: at most 4 connections, a further one opened while each open one has 8 sends.
        #expect(fixture.apns.server.connectionCount == 4)
        #expect(fixture.apns.server.streamCount == 500)
        try await fixture.close()
    }
}
