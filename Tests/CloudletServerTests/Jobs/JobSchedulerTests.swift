import Cloudlet
import CloudletTesting
import Foundation
import Logging
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The job scheduler on a manual clock: a schedule fires at its times and not before, a job never
/// overlaps itself, times missed while no server ran make one run at start, runs an earlier server
/// left running run again, and schedule changes apply without a restart.
@Suite("Job scheduler")
struct JobSchedulerTests {
    /// One app with the jobs `quick` (ends at once) and `held` (waits at the gate), on a manual clock
    /// and a throwaway database.
    final class Fixture: Sendable {
        let clock = ManualClock()
        let gate = JobGate()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-scheduler-\(UUID().uuidString)")
        let runtime: AppRuntime
        /// The app's work loop, which runs the jobs the scheduler queues.
        let work: Task<Void, Never>

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var hooks = HookRegistry()
            hooks.job("quick") { _ in }
            hooks.job("held") { [gate] _ in await gate.wait() }
            var logger = Logger(label: "cloudlet")
            logger.logLevel = .critical
            runtime = AppRuntime(
                appId: "test", stores: AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("test.sqlite").path)),
                executor: InProcessHookExecutor(registry: hooks), clock: clock, logger: logger, hookLogger: logger)
            work = Task { [runtime] in await AppWorkService(runtime: runtime).run() }
        }

        deinit {
            work.cancel()
            try? FileManager.default.removeItem(at: folder)
        }

        /// The app with these schedules.
        func app(_ schedules: [String: String]) throws -> HostedApp {
            HostedApp(
                id: "test", keys: AppKeys(clientKeys: [], masterKeyHashes: []), runtime: runtime,
                rateLimiter: RateLimiter(policy: RateLimitPolicy(), clock: clock), jobSchedules: try schedules.mapValues { try CronSchedule($0) })
        }

        let metrics = CloudletMetrics()

        func scheduler(_ app: HostedApp) -> JobSchedulerService {
            var logger = Logger(label: "cloudlet.jobs")
            logger.logLevel = .critical
            return JobSchedulerService(apps: AppDirectory([app]), clock: clock, logger: logger, metrics: metrics)
        }

        /// The app's runs, oldest first.
        func runs() async throws -> [ParseObject] {
            try await runtime.reads.find(
                ParseQuery(JobStatus.className, order: ["createdAt"], limit: 1000), caller: Caller(isMaster: true, requestId: "test"))
        }

        /// Waits (in real time) until the app has `count` runs, none of them running.
        func waitForEndedRuns(_ count: Int) async throws -> [ParseObject] {
            let giveUp = ContinuousClock.now + .seconds(60)
            while true {
                let runs = try await runs()
                if runs.count == count, runs.allSatisfy({ $0["status"] != "running" }) { return runs }
                guard ContinuousClock.now < giveUp else { throw ParseError.failed("\(runs.count) runs: \(runs.map(\.json))") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        /// Waits (in real time) until `job`'s schedule has skipped `count` times.
        func waitForSkippedRuns(_ count: Int, of job: String) async throws {
            let giveUp = ContinuousClock.now + .seconds(60)
            while try await runtime.context.stores.jobs.jobScheduleStates()[job]?.skippedRuns != count {
                guard ContinuousClock.now < giveUp else { throw ParseError.failed("\(job) did not skip \(count) times") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        /// Moves the clock to `text` (an ISO 8601 time after the current one).
        func move(to text: String) {
            clock.advance(by: .milliseconds(Int64((CronScheduleTests.time(text).timeIntervalSince(clock.now) * 1000).rounded())))
        }
    }

    @Test func aScheduleFiresAtItsTimeAndNotBefore() async throws {
        let fixture = try Fixture()
        let app = try fixture.app(["quick": "0 3 * * *"])
        let scheduler = fixture.scheduler(app)
        try await scheduler.tick(app, now: fixture.clock.now)
        fixture.move(to: "2026-01-01T02:59:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        #expect(try await fixture.runs().isEmpty, "a new schedule counts from when it is first seen")
        fixture.move(to: "2026-01-01T03:00:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        let first = try await fixture.waitForEndedRuns(1)
        #expect(first[0]["source"] == "schedule")
        #expect(first[0]["status"] == "succeeded")
        #expect(first[0].createdAt == CronScheduleTests.time("2026-01-01T03:00:00Z"))
        fixture.move(to: "2026-01-01T03:01:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        fixture.move(to: "2026-01-02T02:59:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        #expect(try await fixture.runs().count == 1)
        fixture.move(to: "2026-01-02T03:00:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        _ = try await fixture.waitForEndedRuns(2)
        let state = try #require(try await fixture.runtime.context.stores.jobs.jobScheduleStates()["quick"])
        #expect(state.lastRunAt == CronScheduleTests.time("2026-01-02T03:00:00Z"))
        #expect(state.lastStatusId == (try await fixture.runs()).last?.objectId)
    }

    @Test func aScheduledJobNeverOverlapsItself() async throws {
        let fixture = try Fixture()
        let app = try fixture.app(["held": "* * * * *"])
        let scheduler = fixture.scheduler(app)
        try await scheduler.tick(app, now: fixture.clock.now)
        fixture.move(to: "2026-01-01T00:01:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        #expect(try await fixture.runs().map { $0["status"] } == ["running"])
        fixture.move(to: "2026-01-01T00:02:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        #expect(try await fixture.runs().count == 1, "the run still going holds the next one off")
        #expect(try await fixture.runtime.context.stores.jobs.jobScheduleStates()["held"]?.skippedRuns == 1)
        let exposition = String(decoding: fixture.metrics.exposition(), as: UTF8.self)
        #expect(exposition.contains(#"cloudlet_job_runs_skipped_total{app="test",job="held"} 1"#), "\(exposition)")
        fixture.gate.open()
        _ = try await fixture.waitForEndedRuns(1)
        fixture.move(to: "2026-01-01T00:03:00Z")
        try await scheduler.tick(app, now: fixture.clock.now)
        #expect(try await fixture.waitForEndedRuns(2).map { $0["status"] } == ["succeeded", "succeeded"], "the skipped time is not made up")
    }

    @Test func timesMissedWhileDownRunOnceAtStartAndRunsLeftRunningRunAgain() async throws {
        let fixture = try Fixture()
        let app = try fixture.app(["quick": "0 3 * * *"])
        // An earlier server dealt with the schedule up to New Year, and was killed with a run going:
        // its lease on the run runs out half a minute after this server starts.
        try await fixture.runtime.context.stores.jobs.saveJobScheduleState(
            JobScheduleState(expression: "0 3 * * *", handledThrough: fixture.clock.now), of: "quick")
        let orphan = JobStatus.running(id: "orphan0001", jobName: "quick", source: .schedule, params: [:], at: fixture.clock.now)
        let leaseEnd = CronScheduleTests.time("2026-01-04T12:00:30Z")
        let leased = NewWork(id: "orphan0001", kind: .job, payload: ["name": "quick"], due: leaseEnd, heldBy: "earlier-server")
        #expect(try await fixture.runtime.context.stores.jobs.recordJobStart(orphan, work: leased, maximumRunning: 4, exclusive: true) == .started)
        fixture.move(to: "2026-01-04T12:00:00Z")
        let service = fixture.scheduler(app)
        let running = Task { await service.run() }
        defer { running.cancel() }
        // The missed times came due while the run still ran: they make no run of their own.
        try await fixture.waitForSkippedRuns(1, of: "quick")
        #expect(try await fixture.runs().map { $0["status"] } == ["running"], "not failed for its server's stop")
        fixture.move(to: "2026-01-04T12:00:30Z")
        let runs = try await fixture.waitForEndedRuns(1)
        #expect(runs[0].objectId == "orphan0001")
        #expect(runs[0]["status"] == "succeeded", "its earlier server's lease ran out: the run ran again")
        await fixture.clock.parked()
        #expect(try await fixture.runs().count == 1, "asleep until the next minute, nothing more ran")
        fixture.move(to: "2026-01-05T03:00:00Z")
        #expect(try await fixture.waitForEndedRuns(2).last?.createdAt == CronScheduleTests.time("2026-01-05T03:00:00Z"), "the service wakes on the clock")
    }

    @Test func aBadScheduleIsRefusedWithItsReason() throws {
        #expect {
            try AppSettings().applying(["jobSchedules": ["cleanup": "61 * * * *"]])
        } throws: { error in
            (error as? ParseError).map { $0.code == 142 && $0.message.contains("jobSchedules.cleanup: minute field \"61\"") } == true
        }
        #expect(throws: ParseError.self) { try AppSettings().applying(["jobSchedules": ["clean up": "0 3 * * *"]]) }
        #expect(throws: ParseError.self) { try AppSettings().applying(["jobSchedules": ["cleanup": 3]]) }
        #expect(throws: ParseError.self) { try AppSettings().applying(["jobSchedules": "0 3 * * *"]) }
    }

    @Test func aJobOverTheAppsCapOnTimeLimitsIsRefusedAsAnyHook() throws {
        let job = HookRegistry.Summary(kind: .job, name: "cleanup", timeLimit: HookKind.job.defaultTimeLimit)
        #expect(throws: ParseError.self) { try AppManifest(appId: "test", settings: AppSettings(), hooks: [job]).checkTimeLimits() }
        let raised = try AppSettings().applying(["maxHookTimeLimitMs": 900_000])
        try AppManifest(appId: "test", settings: raised, hooks: [job]).checkTimeLimits()
    }

    @Test func aScheduleSetInTheRegistryAppliesWithoutARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-scheduler-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        var hooks = HookRegistry()
        hooks.job("quick", timeLimit: .seconds(10)) { _ in }
        let server = try await CloudletApplication(
            configuration: ServerConfiguration(dataDirectory: folder.path),
            apps: [AppDefinition(id: "test", executor: InProcessHookExecutor(registry: hooks))], logger: logger)
        #expect(server.apps.app("test")?.jobSchedules.isEmpty == true)
        try await server.registry.update("test") { $0 = try $0.applying(["jobSchedules": ["quick": "*/10 * * * *"]]) }
        #expect(try await server.registry.app("test")?.settings.jobSchedules["quick"]?.expression == "*/10 * * * *", "kept in the registry")
        await server.supervisor.reload()
        #expect(server.apps.app("test")?.jobSchedules["quick"]?.expression == "*/10 * * * *")
        #expect(server.supervisor.manifests.first?.settingsLines.last == "  jobs scheduled (UTC): quick at */10 * * * *")
    }
}
