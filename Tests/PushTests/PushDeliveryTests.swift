import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing

@Suite struct PushDeliveryTests {
    @Test func aFanOutDeliversToEveryInstallationWithATokenExactlyOnce() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3_000)
        try await fixture.addInstallation("zNoToken", token: nil)
        let provider = RecordingProvider()
        try await fixture.recordJob()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)])
        let status = try await finished(fixture)
        await delivery.stop()

        #expect(status["status"] == "succeeded")
        #expect(status["count"] == 3_000)
        #expect(status["numSent"] == 3_000)
        #expect(status["numFailed"] == 0)
        #expect(status["sentPerType"] == ["ios": 1_500, "android": 1_500])
        let sent = provider.sent
        #expect(sent.count == 3_000)
        #expect(Set(sent.map(\.token)).count == 3_000)
        #expect(Set(sent.map(\.id)).count == 3_000)
        #expect(sent.allSatisfy { $0.data["alert"] == "Hello" })
    }

    @Test func aRestartMidFanOutResendsOnlyWhatWasInFlightWithTheSameIds() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3_000)
        let provider = RecordingProvider { _, _ in
            try? await Task.sleep(for: .milliseconds(1))
            return .sent
        }
        var work = WorkSettings.fast
        work.concurrency = 16
        try await fixture.recordJob()
        let first = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], work: work)
        try await eventually("a third is sent") { provider.sent.count >= 1_000 }
        await first.stop()
        let sentBeforeRestart = provider.sent.count
        #expect(sentBeforeRestart < 3_000)

        let restarted = try fixture.reopened()
        let second = RunningDelivery([PushDeliveryApp(id: "app", stores: restarted, providers: PushProviders(fallback: provider))], work: work)
        let status = try await finished(fixture)
        await second.stop()

        let sent = provider.sent
        let idsByToken = Dictionary(grouping: sent, by: \.token).mapValues { Set($0.map(\.id)) }
        #expect(idsByToken.count == 3_000)
        #expect(idsByToken.values.allSatisfy { $0.count == 1 }, "a resend carries the delivery's first id")
        let duplicates = sent.count - 3_000
        // Only sends whose results were not yet recorded: at most those in flight.
        #expect(duplicates <= work.concurrency)
        #expect(status["status"] == "succeeded")
        #expect(status["numSent"] == 3_000)
    }

    @Test(.timing) func aRetryIsSentWhenItFallsDueAndItsJobEndsWithItsLastResultNotAtTheNextPoll() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallation("a", token: "t")
        let provider = RecordingProvider { _, earlier in earlier == 0 ? .retry(reason: "ServiceUnavailable") : .sent }
        var configuration = PushDeliveryConfiguration(pollInterval: .seconds(20))
        configuration.backoff = Backoff(first: .milliseconds(200), maximum: .seconds(300), isJittered: true)
        try await fixture.recordJob()
        let started = ContinuousClock.now
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], configuration: configuration)
        try await eventually("the retry is sent", timeout: .seconds(5)) { provider.sent.count == 2 }
        let status = try await finished(fixture, timeout: .seconds(5))
        let elapsed = started.duration(to: .now)
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(elapsed < .seconds(5), "a 20 s poll interval was waited for: \(elapsed)")
    }

    @Test func aJobWithNoProviderForItsDevicesFailsWithNoProvider() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(4)
        try await fixture.recordJob()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, nil)])
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "failed")
        #expect(status["numFailed"] == 4)
        #expect(status["failedPerReason"] == ["NoProvider": 4])
        #expect(status["failedPerType"] == ["ios": 2, "android": 2])
    }

    @Test func aJobWithoutRecipientsSucceeds() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.recordJob(query: ["channels": ["$in": ["nobody"]]])
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, RecordingProvider())])
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(status["count"] == 0)
    }

    @Test func aPageOfRecipientsHoldsWhatTheirDeliveriesNeedAndIsWrittenOnce() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3)
        try await fixture.addInstallation("iNoToken", token: nil)
        try await fixture.addInstallation("iOddType", token: "tOdd", deviceType: "android", fields: ["pushType": ["alert"]])
        let job = try await fixture.recordJob()
        try await fixture.stores.push.startPushJob(job, now: Date())
        let recipients = PushRecipients(storage: fixture.stores.objects, query: [:])
        let first = try await fixture.stores.push.pushRecipients(recipients.pageQuery(after: nil, limit: 2))
        #expect(first == [
            PushRecipient(installationId: "i00000", deviceType: "ios", token: "t00000", pushType: nil),
            PushRecipient(installationId: "i00001", deviceType: "android", token: "t00001", pushType: nil),
        ])
        // The next page starts after the cursor; an installation without a token is no recipient; a
        // push type that is not a string is none.
        let second = try await fixture.stores.push.pushRecipients(recipients.pageQuery(after: "i00001", limit: 2))
        #expect(second == [
            PushRecipient(installationId: "i00002", deviceType: "ios", token: "t00002", pushType: nil),
            PushRecipient(installationId: "iOddType", deviceType: "android", token: "tOdd", pushType: nil),
        ])
        try await fixture.stores.push.expandPushJob(job, recipients: first, cursor: "i00001", isLast: false, badgeIncrement: nil, now: Date())
        // Written again, as after a restart before the cursor was kept: no second delivery.
        try await fixture.stores.push.expandPushJob(job, recipients: first + second, cursor: "iOddType", isLast: true, badgeIncrement: nil, now: Date())
        let progress = try #require(try await fixture.stores.push.pushJobProgress(job))
        #expect(progress == PushJobProgress(jobId: job, cursor: "iOddType", isExpanded: true, isFinished: false, pending: 4))
        let claimed = try await fixture.stores.work.claim([.pushDelivery], limit: 10, owner: "test", at: Date(), leasedUntil: Date() + 30)
        let deliveries = claimed.compactMap(PushDelivery.init)
        #expect(deliveries.map(\.token).sorted() == ["t00000", "t00001", "t00002", "tOdd"])
        #expect(Set(deliveries.map(\.key)).count == 4)
        // Beside them, the job's fan-out, queued as it was recorded.
        #expect(claimed.map(\.id).filter { !deliveries.map(\.id).contains($0) } == [PushDelivery.fanOutId(job: job)])
    }

    @Test func aPageSizeAboveWhatOneQueryReturnsStillReachesEveryRecipient() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(1_500)
        let provider = RecordingProvider()
        try await fixture.recordJob()
        var configuration = PushDeliveryConfiguration.fast
        configuration.pageSize = 5_000
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], configuration: configuration)
        let status = try await finished(fixture)
        await delivery.stop()
        // A query returns at most 1,000: a first page of 1,000 is not taken for the last one.
        #expect(status["count"] == 1_500)
        #expect(status["numSent"] == 1_500)
        #expect(Set(provider.sent.map(\.token)).count == 1_500)
    }

    @Test func aBadJobFailsWithItsErrorMessage() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(2)
        try await fixture.stores.objects.insert(
            ParseObject(className: "_PushStatus", objectId: "bad", acl: ParseACL(), fields: ["status": "pending", "query": "{", "payload": "{}"]),
            outbox: nil)
        try await fixture.recordJob("badQuery", query: ["deviceType": ["$nope": 1]])
        let provider = RecordingProvider()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)])
        let bad = try await finished(fixture, "bad")
        let badQuery = try await finished(fixture, "badQuery")
        await delivery.stop()
        #expect(bad["status"] == "failed")
        #expect(bad["errorMessage"] == "push job has an invalid query")
        #expect(badQuery["status"] == "failed")
        #expect(badQuery["errorMessage"]?.stringValue?.isEmpty == false)
        #expect(provider.sent.isEmpty)
    }

    @Test func aProvidersJobWideRefusalFailsTheJobAndEndsItsOtherDeliveries() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(500)
        let provider = RecordingProvider { _, _ in .jobFailed(reason: "PayloadTooLarge") }
        var work = WorkSettings.fast
        work.concurrency = 8
        try await fixture.recordJob()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], work: work)
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "failed")
        #expect(status["errorMessage"] == "PayloadTooLarge")
        #expect(status["numSent"] == 0)
        #expect(status["numFailed"] == status["count"])
        #expect(status["failedPerReason"] == ["PayloadTooLarge": status["count"] ?? 0])
        #expect(provider.sent.count <= work.concurrency)
    }

    @Test func invalidTokensAreUnsetUnlessTheInstallationWasUpdatedAfterAppleSaidSo() async throws {
        let fixture = try DeliveryFixture()
        let updated = Date(timeIntervalSince1970: 1_800_000_000)
        try await fixture.addInstallation("a", token: "gone", updatedAt: updated)
        try await fixture.addInstallation("b", token: "renewed", updatedAt: updated)
        try await fixture.addInstallation("c", token: "stale", updatedAt: updated)
        let provider = RecordingProvider { message, _ in
            switch message.token {
            case "gone": .invalidToken(reason: "BadDeviceToken")
            case "renewed": .invalidToken(reason: "Unregistered", unregisteredAt: updated.addingTimeInterval(-60))
            default: .invalidToken(reason: "Unregistered", unregisteredAt: updated.addingTimeInterval(60))
            }
        }
        try await fixture.recordJob()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)])
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "failed")
        #expect(status["failedPerReason"] == ["BadDeviceToken": 1, "Unregistered": 2])
        #expect(try await fixture.installation("a").fields["deviceToken"] == nil)
        #expect(try await fixture.installation("b").fields["deviceToken"] == "renewed")
        #expect(try await fixture.installation("c").fields["deviceToken"] == nil)
    }

    @Test func badgeIncrementResolvesEachInstallationsBadgeOncePerJob() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallation("a", token: "ta", fields: ["badge": 5])
        try await fixture.addInstallation("b", token: "tb")
        let provider = RecordingProvider()
        try await fixture.recordJob("first", data: ["alert": "Hi", "badge": "Increment"])
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)])
        _ = try await finished(fixture, "first")
        try await fixture.recordJob("second", data: ["alert": "Hi", "badge": "Increment"])
        _ = try await finished(fixture, "second")
        // The SDK's `.increment(by: 3)`, stored as Parse's field operation.
        try await fixture.recordJob("third", data: ["alert": "Hi", "badge": ["__op": "Increment", "amount": 3]])
        _ = try await finished(fixture, "third")
        await delivery.stop()
        let badges = Dictionary(grouping: provider.sent, by: \.token).mapValues { $0.compactMap { $0.data["badge"]?.intValue } }
        #expect(badges == ["ta": [6, 7, 10], "tb": [1, 2, 5]])
        #expect(try await fixture.installation("a").fields["badge"] == 10)
        #expect(try await fixture.installation("b").fields["badge"] == 5)
    }

    @Test func oneAppsLargeFanOutToASlowProviderDoesNotHoldUpAnotherAppsPush() async throws {
        let large = try DeliveryFixture()
        try await large.addInstallations(20_000)
        let small = try DeliveryFixture()
        try await small.addInstallations(1)
        let slow = RecordingProvider { _, _ in
            try? await Task.sleep(for: .milliseconds(50))
            return .sent
        }
        let quick = RecordingProvider()
        try await large.recordJob()
        let delivery = RunningDelivery([PushDeliveryApp.serving(large, slow, id: "large"), PushDeliveryApp.serving(small, quick, id: "small")])
        try await eventually("the large fan-out is sending") { slow.sent.count >= 200 }
        let recorded = ContinuousClock.now
        try await small.recordJob()
        let status = try await finished(small, timeout: .seconds(10))
        let took = ContinuousClock.now - recorded
        #expect(try await large.status()["status"] == "running")
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(took < .seconds(2), "the small app's push took \(took)")
        #expect(slow.sent.count < 20_000)
    }
}
