import Cloudlet
import CloudletServer
import Foundation
import LoadSupport
import Logging

/// Provides the send of every message at once: the service's own ceiling.
struct AcceptingProvider: PushProvider {
    func send(_ message: PushMessage) async -> PushOutcome { .sent }
}

/// One scenario: a fresh app database of N iOS installations and one job to all of them, sent by
/// the delivery service through `provider`.
struct Scenario {
    var number: Int
    var name: String
    var provider: any PushProvider
    /// The `_PushStatus` counts it must end with.
    var expected: ExpectedCounts
}

/// What `_PushStatus` must say once the job ends.
struct ExpectedCounts: Equatable {
    var numSent: Int
    var numFailed: Int
    var failedPerReason: [String: Int]
    /// Deliveries that take a second attempt.
    var retried: Int
}

/// What one scenario measured.
struct ScenarioResult {
    var seconds: Double
    /// Until every delivery that needs no retry had ended.
    var firstAttemptSeconds: Double
    var counts: ExpectedCounts
    var status: String
    var peakMiB: Double
    /// CPU seconds the delivery side (this process) and the stand-in used during the job.
    var deliveryCPUSeconds: Double
    var standInCPUSeconds: Double
    /// The share of the machine's CPU time the hypervisor gave to other guests meanwhile.
    var stealShare: Double
}

extension Scenario {
    /// Writes the installations, then runs the job in the app's work loop with `concurrency` sends at
    /// once until it ends,
    /// measuring the CPU of this process and of the stand-in process `standInPID`.
    func run(installations: Int, concurrency: Int, in folder: URL, standInPID: Int32) async throws -> ScenarioResult {
        let path = folder.appendingPathComponent("scenario-\(number).sqlite").path
        let stores = AppStores(try SQLiteAppDatabase(path: path))
        try await writeInstallations(installations, into: stores.objects)
        PeakMemory.reset()
        let logger = Logger(label: "cloudlet.push")
        let runtime = AppRuntime(
            appId: "bench", stores: stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: SystemClock(),
            logger: logger, hookLogger: logger)
        let providers = PushProviders(byDeviceType: ["ios": provider], fallback: nil)
        let service = AppWorkService(
            runtime: runtime, settings: WorkSettings(concurrency: concurrency), push: PushDeliverySetup(providers: { providers }))
        let job = PushJob(id: "job\(number)", status: .pending, source: "rest", query: [:], data: ["alert": "Hello", "sound": "default"])
        let started = ContinuousClock.now
        let cpuAtStart = (delivery: ProcessCPU.seconds(), standIn: ProcessCPU.seconds(of: standInPID), machine: MachineCPU.now())
        try await stores.objects.insert(ParseObject(className: "_PushStatus", objectId: job.id, acl: ParseACL(), fields: job.fields), outbox: nil)
        let running = Task { await service.run() }
        defer { running.cancel() }
        var fields: [String: ParseValue] = [:]
        var firstAttempts: Duration?
        while !["succeeded", "failed", "expired"].contains(fields["status"]?.stringValue ?? "") {
            guard started.duration(to: .now) < .seconds(600) else { throw BenchmarkFailure("\(name): the job did not end in 10 minutes") }
            try await Task.sleep(for: .milliseconds(10))
            fields = try await stores.objects.fetch("_PushStatus", id: job.id)?.fields ?? [:]
            let ended = (fields["numSent"]?.intValue ?? 0) + (fields["numFailed"]?.intValue ?? 0)
            if firstAttempts == nil, ended >= installations - expected.retried { firstAttempts = started.duration(to: .now) }
        }
        let elapsed = started.duration(to: .now)
        let cpuAtEnd = (delivery: ProcessCPU.seconds(), standIn: ProcessCPU.seconds(of: standInPID), machine: MachineCPU.now())
        running.cancel()
        await running.value
        let peak = PeakMemory.mebibytes
        try? FileManager.default.removeItem(atPath: path)
        let reasons = (fields["failedPerReason"]?.objectValue ?? [:]).compactMapValues(\.intValue)
        return ScenarioResult(
            seconds: elapsed.seconds, firstAttemptSeconds: (firstAttempts ?? elapsed).seconds,
            counts: ExpectedCounts(
                numSent: fields["numSent"]?.intValue ?? 0, numFailed: fields["numFailed"]?.intValue ?? 0, failedPerReason: reasons,
                retried: expected.retried),
            status: fields["status"]?.stringValue ?? "", peakMiB: peak, deliveryCPUSeconds: cpuAtEnd.delivery - cpuAtStart.delivery,
            standInCPUSeconds: cpuAtEnd.standIn - cpuAtStart.standIn, stealShare: cpuAtEnd.machine.stealShare(since: cpuAtStart.machine))
    }

    /// N installations, iOS with this scenario's tokens, a thousand to a transaction.
    private func writeInstallations(_ count: Int, into objects: any ObjectStorage) async throws {
        let now = Date()
        func installation(_ index: Int) -> ParseObject {
            ParseObject(
                className: "_Installation", objectId: String(format: "i%07d", index), createdAt: now, updatedAt: now,
                fields: [
                    "installationId": .string(UUID().uuidString), "deviceType": "ios",
                    "deviceToken": .string(BenchmarkTokens.token(scenario: number, index: index)), "channels": ["news"],
                ])
        }
        for start in stride(from: 0, to: count, by: 1000) {
            let batch = (start..<min(start + 1000, count)).map(installation)
            try await objects.insert(batch[0], outbox: nil, alongside: Array(batch.dropFirst()))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
