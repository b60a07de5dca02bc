import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing

/// Retries, schedules and expirations, on a manual clock.
@Suite struct PushDeliveryTimingTests {
    let clock = ManualClock()

    /// Waits until the work loop's next alarm is at `date`: the retry due then is queued and nothing
    /// is in flight (a loop running something wakes first, to renew its lease).
    func parked(at date: Date, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await eventually("the loop sleeps until \(date)", sourceLocation: sourceLocation) {
            clock.pendingDeadlines.first.map { abs($0.timeIntervalSince(date)) < 0.001 } == true
        }
    }

    @Test func retriesBackOffExponentiallyUpToTheMostAttempts() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallation("a", token: "recovers")
        try await fixture.addInstallation("b", token: "never")
        let provider = RecordingProvider { message, earlier in
            message.token == "recovers" && earlier == 2 ? .sent : .retry(reason: "TooManyRequests")
        }
        var configuration = PushDeliveryConfiguration.fast
        configuration.maximumAttempts = 3
        configuration.backoff = Backoff(first: .seconds(1), maximum: .seconds(300))
        try await fixture.recordJob()
        let start = clock.now
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], configuration: configuration, clock: clock)
        try await eventually("each is tried once") { provider.sent.count == 2 }
        try await parked(at: start.addingTimeInterval(1))
        #expect(provider.sent.count == 2, "no retry before its backoff")
        clock.advance(by: .seconds(1))
        try await eventually("each is tried twice") { provider.sent.count == 4 }
        try await parked(at: start.addingTimeInterval(3))
        clock.advance(by: .seconds(1))
        #expect(provider.sent.count == 4, "the second wait is two seconds")
        clock.advance(by: .seconds(1))
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(provider.sent.count == 6)
        #expect(status["status"] == "succeeded")
        #expect(status["numSent"] == 1)
        #expect(status["failedPerReason"] == ["TooManyRequests": 1])
    }

    @Test func aRetryAfterFromTheProviderIsHonoured() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallation("a", token: "t")
        let provider = RecordingProvider { _, earlier in earlier == 0 ? .retry(reason: "ServiceUnavailable", retryAfter: .seconds(30)) : .sent }
        try await fixture.recordJob()
        let start = clock.now
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], clock: clock)
        try await eventually("the first attempt") { provider.sent.count == 1 }
        try await parked(at: start.addingTimeInterval(30))
        clock.advance(by: .seconds(29))
        try await parked(at: start.addingTimeInterval(30))
        #expect(provider.sent.count == 1, "no retry before the provider's Retry-After")
        clock.advance(by: .seconds(1))
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(provider.sent.count == 2)
        #expect(Set(provider.sent.map(\.id)).count == 1, "every attempt carries the delivery's id")
    }

    @Test func aScheduledJobIsSentWhenItsTimeComes() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3)
        let provider = RecordingProvider()
        try await fixture.recordJob(pushTime: clock.now.addingTimeInterval(3_600))
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], clock: clock)
        try await parked(at: clock.now.addingTimeInterval(3_600))
        #expect(try await fixture.status()["status"] == "scheduled")
        #expect(provider.sent.isEmpty)
        clock.advance(by: .seconds(3_600))
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(provider.sent.count == 3)
    }

    @Test func aJobWhoseExpirationPassedBeforeItStartedExpiresUnsent() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3)
        let provider = RecordingProvider()
        try await fixture.recordJob(pushTime: clock.now.addingTimeInterval(60), expiration: clock.now.addingTimeInterval(30))
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], clock: clock)
        try await eventually("the job is scheduled") { try await fixture.status()["status"] == "scheduled" }
        clock.advance(by: .seconds(60))
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "expired")
        #expect(provider.sent.isEmpty)
    }

    @Test func deliveriesStillWaitingWhenTheJobExpiresEndExpired() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(2)
        let provider = RecordingProvider { _, _ in .retry(reason: "InternalServerError", retryAfter: .seconds(60)) }
        try await fixture.recordJob(expiration: clock.now.addingTimeInterval(30))
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], clock: clock)
        try await eventually("both are tried") { provider.sent.count == 2 }
        clock.advance(by: .seconds(60))
        let status = try await finished(fixture)
        await delivery.stop()
        #expect(status["status"] == "expired")
        #expect(status["failedPerReason"] == ["Expired": 2])
        #expect(provider.sent.count == 2)
    }
}

/// The backoff of push deliveries.
@Suite struct PushBackoffTests {
    @Test func theCeilingDoublesUpToTheMaximum() {
        let backoff = Backoff(first: .seconds(1), maximum: .seconds(300), isJittered: true)
        #expect((1...5).map { backoff.ceiling(afterAttempt: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(backoff.ceiling(afterAttempt: 12) == .seconds(300))
        #expect(backoff.ceiling(afterAttempt: 1_000) == .seconds(300))
    }

    @Test func eachWaitIsBetweenHalfAndAllOfTheCeiling() {
        let backoff = PushDeliveryConfiguration.defaultBackoff
        let waits = (0..<200).map { _ in backoff.delay(afterAttempt: 3) }
        #expect(waits.allSatisfy { $0 >= .milliseconds(500) && $0 <= .seconds(1) })
        #expect(Set(waits).count > 1, "waits are jittered")
    }

    @Test func byDefaultADeliveryIsTriedForFourToNineMinutesBeforeItFails() {
        let configuration = PushDeliveryConfiguration()
        let waits = (1..<configuration.maximumAttempts).map { configuration.backoff.ceiling(afterAttempt: $0) }
        #expect(waits.first == .milliseconds(250))
        let longest = waits.reduce(.zero, +)
        #expect(longest / 2 >= .seconds(4 * 60) && longest <= .seconds(9 * 60))
    }
}
