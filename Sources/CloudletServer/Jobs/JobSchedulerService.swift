import Cloudlet
import CloudletRuntime
import Foundation
import Logging
import ServiceLifecycle

/// Runs the apps' scheduled jobs: at the start of every minute (on the injected clock) it starts
/// each job whose schedule has come due since it was last dealt with, as the master key, with
/// source `schedule` and no parameters.
///
/// - A job never overlaps itself: if its previous run still runs when it comes due, that time is
///   skipped, logged and counted (`skippedRuns` in the schedule's state).
/// - Times missed while the server was down make one run at start: each schedule keeps in the app's
///   database the moment up to which its times were dealt with.
/// - A new (or changed) schedule counts from when this service first sees it.
/// - The runs it starts are queued work (``BackgroundJobs/start(_:params:source:caller:exclusive:)``):
///   a run its server stopped under runs again on the next start.
/// Schedules come from the registry through ``HostedApp/jobSchedules``, so changes apply without a restart.
public struct JobSchedulerService: Service {
    /// The apps whose schedules run.
    public let apps: AppDirectory
    /// The clock schedules are read on.
    public let clock: any CloudletClock
    /// Where started, skipped and failed starts are logged.
    public let logger: Logger
    /// Where skipped runs are counted, when given.
    let metrics: CloudletMetrics?

    /// A scheduler of the schedules of `apps`, on `clock`, counting skipped runs in `metrics` when given.
    public init(
        apps: AppDirectory, clock: any CloudletClock, logger: Logger, metrics: CloudletMetrics? = nil
    ) {
        self.apps = apps
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = clock.now
                for app in apps.all {
                    do {
                        try await tick(app, now: now)
                    } catch {
                        logger.error("could not run the app's job schedules", metadata: ["app": "\(app.id)", "error": "\(error)"])
                    }
                }
                await clock.sleep(until: Date(timeIntervalSince1970: ((clock.now.timeIntervalSince1970 / 60).rounded(.down) + 1) * 60))
            }
        }
    }

    /// Starts the app's jobs that came due by `now`.
    func tick(_ app: HostedApp, now: Date) async throws {
        guard !app.jobSchedules.isEmpty else { return }
        let jobs = app.runtime.context.stores.jobs
        let states = try await jobs.jobScheduleStates()
        for (job, schedule) in app.jobSchedules.sorted(by: { $0.key < $1.key }) {
            guard var state = states[job], state.expression == schedule.expression else {
                try await jobs.saveJobScheduleState(JobScheduleState(expression: schedule.expression, handledThrough: now), of: job)
                continue
            }
            guard let due = schedule.next(after: state.handledThrough), due <= now,
                // Another node's scheduler may have read the same state: one of them runs what came due.
                try await jobs.claimJobSchedule(job, expression: state.expression, handledThrough: state.handledThrough, now: now)
            else { continue }
            state.handledThrough = now
            var metadata: Logger.Metadata = ["app": "\(app.id)", "job": "\(job)", "due": "\(ParseDate.string(from: due))"]
            do {
                let caller = Caller(isMaster: true, requestId: "schedule-" + UUID().uuidString)
                let id = try await app.runtime.jobs.start(job, params: [:], source: .schedule, caller: caller, exclusive: true)
                state.lastRunAt = now
                state.lastStatusId = id
                metadata["jobId"] = "\(id)"
                logger.info("started a scheduled job", metadata: metadata)
            } catch is JobAlreadyRunning {
                state.skippedRuns += 1
                metrics?.scheduledJobSkipped(app: app.id, job: job)
                logger.warning("skipped a scheduled job: its previous run still runs", metadata: metadata)
            } catch let error as ParseError {
                state.skippedRuns += 1
                metrics?.scheduledJobSkipped(app: app.id, job: job)
                metadata["error"] = "\(error.message)"
                logger.error("could not start a scheduled job", metadata: metadata)
            }
            try await jobs.saveJobScheduleState(state, of: job)
        }
    }
}
