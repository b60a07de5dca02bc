import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing

/// An idle work loop polls nothing: it wakes when a job is recorded, when a scheduled job's
/// time comes, and when another process writes the app's database. Each test sets polls an hour
/// apart, so only the wake-ups can explain a job being sent.
@Suite(.timing) struct PushDeliveryWakeTests {
    static let unpolled = PushDeliveryConfiguration(pollInterval: .seconds(3_600))
    static let unwatched = WorkSettings(lease: .seconds(1), outsideWriteInterval: .seconds(3_600))

    @Test func aJobRecordedWhileTheLoopSleepsIsSentAtOnce() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(3)
        let provider = RecordingProvider()
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], configuration: Self.unpolled, work: Self.unwatched)
        // The loop has looked at the empty app by now and sleeps.
        try await Task.sleep(for: .milliseconds(300))
        try await fixture.recordJob()
        let status = try await finished(fixture, timeout: .seconds(20))
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(provider.sent.count == 3)
    }

    @Test func aScheduledJobStartsWhenItsTimeComes() async throws {
        let clock = ManualClock()
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(2)
        let provider = RecordingProvider()
        try await fixture.recordJob(pushTime: clock.now.addingTimeInterval(3_600))
        let delivery = RunningDelivery(
            [PushDeliveryApp.serving(fixture, provider)], configuration: Self.unpolled, work: Self.unwatched, clock: clock)
        try await eventually("the job is scheduled") { try await fixture.status()["status"] == "scheduled" }
        clock.advance(by: .seconds(3_600))
        let status = try await finished(fixture, timeout: .seconds(20))
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(provider.sent.count == 2)
    }

    /// Another process (here another connection to the same file, as `cloudlet push` opens one)
    /// records a job: the loop learns of it from the database's files.
    @Test func aJobRecordedByAnotherProcessIsSentWithinTheOutsideWriteInterval() async throws {
        let fixture = try DeliveryFixture()
        try await fixture.addInstallations(2)
        let provider = RecordingProvider()
        var work = Self.unwatched
        work.outsideWriteInterval = .milliseconds(100)
        let delivery = RunningDelivery([PushDeliveryApp.serving(fixture, provider)], configuration: Self.unpolled, work: work)
        try await Task.sleep(for: .milliseconds(300))
        let elsewhere = try fixture.reopened()
        let job = PushJob(id: "job1", status: .pending, source: "rest", query: [:], data: ["alert": "Hi"])
        try await elsewhere.objects.insert(
            ParseObject(className: "_PushStatus", objectId: "job1", createdAt: Date(), updatedAt: Date(), acl: ParseACL(), fields: job.fields),
            outbox: nil)
        let status = try await finished(fixture, timeout: .seconds(20))
        await delivery.stop()
        #expect(status["status"] == "succeeded")
        #expect(provider.sent.count == 2)
    }
}
