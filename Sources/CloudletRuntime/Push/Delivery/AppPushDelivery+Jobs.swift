import Cloudlet
import Foundation

extension AppPushDelivery {
    /// The most jobs looked at in one pass.
    static let jobsPerPass = 100

    /// What one pass over the app's jobs found.
    struct ManagedJobs {
        /// Whether new deliveries were written.
        var wroteDeliveries = false
        /// When a job is next due to be looked at: the earliest scheduled job's start or running
        /// job's expiration, if any.
        var nextDueAt: Date?
    }

    /// Starts, schedules or ends the app's jobs due to start, and writes pages of recipients of its
    /// running jobs until each has ``PushDeliveryConfiguration/fanOutAhead`` deliveries waiting;
    /// ends the jobs that have nothing left.
    func manageJobs(_ app: PushDeliveryApp, _ jobs: inout [String: JobEntry]) async -> ManagedJobs {
        var managed = ManagedJobs()
        do {
            let toStart = try await app.storage.pushJobsToStart(now: clock.now, limit: Self.jobsPerPass)
            for id in toStart {
                try await start(id, app, &jobs)
            }
            // A full page may have left jobs to start: the next pass is due at once.
            var dueTimes: [Date] = toStart.count == Self.jobsPerPass ? [clock.now] : []
            for progress in try await app.storage.runningPushJobs(limit: Self.jobsPerPass) {
                if try await advance(progress, app, &jobs) { managed.wroteDeliveries = true }
                if case .ready(let job)? = jobs[progress.jobId], let expiration = job.expiration { dueTimes.append(expiration) }
            }
            let scheduled = try await app.storage.nextScheduledPushJob()
            managed.nextDueAt = (dueTimes + [scheduled].compactMap { $0 }).min()
        } catch {
            report("could not manage push jobs", error)
            // Looked at again after a poll interval, as a failed claim is.
            managed.nextDueAt = clock.now.addingTimeInterval(configuration.pollInterval.seconds)
        }
        return managed
    }

    private func start(_ id: String, _ app: PushDeliveryApp, _ jobs: inout [String: JobEntry]) async throws {
        let now = clock.now
        switch await entry(id, app, &jobs) {
        case .failed(let reason):
            try await finish(id, .failed(reason: reason), app, &jobs)
        case .ready(let job):
            if [.succeeded, .failed, .expired].contains(job.status) {
                try await finish(id, .untouched, app, &jobs)
            } else if let expiration = job.expiration, expiration <= now {
                try await finish(id, .expired, app, &jobs)
            } else if let pushTime = job.pushTime, pushTime > now {
                try await app.storage.schedulePushJob(id, at: pushTime, now: now)
                jobs[id] = nil
            } else {
                try await app.storage.startPushJob(id, now: now)
            }
        }
    }

    /// Writes pages of the job's recipients as deliveries until enough wait to be sent, or ends it
    /// if it has nothing left. Returns whether deliveries were written.
    private func advance(_ progress: PushJobProgress, _ app: PushDeliveryApp, _ jobs: inout [String: JobEntry]) async throws -> Bool {
        let id = progress.jobId
        let job: PushJob
        switch await entry(id, app, &jobs) {
        case .failed(let reason):
            try await finish(id, .failed(reason: reason), app, &jobs)
            return false
        case .ready(let ready): job = ready
        }
        if let expiration = job.expiration, expiration <= clock.now {
            try await finish(id, .expired, app, &jobs)
            return false
        }
        if progress.isExpanded {
            if progress.pending == 0 { try await finish(id, .completed, app, &jobs) }
            return false
        }
        let recipients = PushRecipients(storage: app.storage, query: job.query)
        var pending = progress.pending
        var cursor = progress.cursor
        var wrote = false
        while pending < configuration.fanOutAhead {
            let page: [PushRecipient]
            let isLast: Bool
            do {
                let query = recipients.pageQuery(after: cursor, limit: configuration.pageSize)
                page = try await app.storage.pushRecipients(query)
                isLast = page.count < query.limit
                try await app.storage.expandPushJob(
                    id, recipients: page, cursor: page.last?.installationId ?? cursor, isLast: isLast, badgeIncrement: job.badgeIncrement,
                    now: clock.now)
            } catch let error as ParseError {
                // The job's query cannot run, or its badge cannot be incremented: it would fail the same way again.
                try await finish(id, .failed(reason: error.message), app, &jobs)
                return wrote
            }
            cursor = page.last?.installationId ?? cursor
            pending += page.count
            wrote = wrote || !page.isEmpty
            if isLast { break }
        }
        return wrote
    }

    private func finish(_ id: String, _ ending: PushJobEnding, _ app: PushDeliveryApp, _ jobs: inout [String: JobEntry]) async throws {
        try await app.storage.finishPushJob(id, ending, now: clock.now)
        jobs[id] = nil
    }
}
