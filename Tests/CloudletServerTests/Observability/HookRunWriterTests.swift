import Cloudlet
import CloudletTesting
import Foundation
import Logging
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The hook log writer sleeps until an app buffers a run, then writes it.
@Suite struct HookRunWriterTests {
    @Test func aRunBufferedWhileTheWriterSleepsIsWritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-hookwriter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        let directory = AppDirectory()
        let stores = AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("test.sqlite").path))
        let log = HookRunLog(appId: "test", storage: stores.hookRuns, metrics: CloudletMetrics(), buffered: directory.hookRunBuffered)
        let clock = ManualClock()
        let runtime = AppRuntime(
            appId: "test", stores: stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: clock, logger: logger,
            hookLogger: logger, hookRuns: log)
        directory.set(
            HostedApp(
                id: "test", keys: AppKeys(clientKeys: [], masterKeyHashes: []), runtime: runtime,
                rateLimiter: RateLimiter(policy: RateLimitPolicy(), clock: clock)))
        let writer = Task { try await HookRunWriter(apps: directory, interval: .milliseconds(10), logger: logger).run() }
        try await Task.sleep(for: .milliseconds(200))
        log.record(HookRun(hook: "function:ok", requestId: "r1", startedAt: Date(), duration: .milliseconds(1), outcome: .ok))
        let giveUp = ContinuousClock.now + .seconds(20)
        while try await stores.hookRuns.hookRuns(HookRunQuery(limit: 10)).isEmpty, ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await stores.hookRuns.hookRuns(HookRunQuery(limit: 10)).map(\.requestId) == ["r1"])
        writer.cancel()
        try await writer.value
    }
}
