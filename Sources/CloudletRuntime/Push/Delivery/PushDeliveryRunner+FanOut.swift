import Cloudlet
import Foundation

extension PushDeliveryRunner {
    /// Runs job `id`'s fan-out, queued with the job (attempt `attempts`): starts the job, or holds
    /// it until its `pushTime` (due again then), or ends it if it expired or already ended; then
    /// queues pages of its recipients as deliveries until
    /// ``PushDeliveryConfiguration/fanOutAhead`` wait to be sent (due again a poll interval later
    /// while more remain). Once every recipient has its delivery, its last result ends the job; a
    /// job with an expiration keeps its fan-out due then, to end the deliveries still waiting.
    func fanOut(_ id: String, attempts: Int) async -> WorkOutcome {
        do {
            let job: PushJob
            switch try await entry(id) {
            case .failed(let reason):
                try await push.finishPushJob(id, .failed(reason: reason), now: clock.now)
                return .done
            case .ready(let ready): job = ready
            }
            let now = clock.now
            if [.succeeded, .failed, .expired].contains(job.status) {
                try await push.finishPushJob(id, .untouched, now: now)
                return .done
            }
            if let expiration = job.expiration, expiration <= now {
                try await push.finishPushJob(id, .expired, now: now)
                return .done
            }
            if job.status != .running {
                if let pushTime = job.pushTime, pushTime > now {
                    if job.status != .scheduled { try await push.schedulePushJob(id, now: now) }
                    return .retry(at: pushTime)
                }
                try await push.startPushJob(id, now: now)
            }
            guard let progress = try await push.pushJobProgress(id), !progress.isFinished else { return .done }
            if !progress.isExpanded {
                do {
                    if try await !expand(job, from: progress) {
                        return .retry(at: clock.now.addingTimeInterval(setup.configuration.pollInterval.seconds))
                    }
                } catch let error as ParseError {
                    // The job's query cannot run, or its badge cannot be incremented: it would fail the same way again.
                    try await push.finishPushJob(id, .failed(reason: error.message), now: clock.now)
                    return .done
                }
            }
            return job.expiration.map { .retry(at: $0) } ?? .done
        } catch {
            report("could not run a push job's fan-out", error)
            if Task.isCancelled || error is CancellationError { return .released }
            return .retry(at: setup.configuration.backoff.due(afterAttempt: attempts, failedAt: clock.now))
        }
    }

    /// Queues pages of `job`'s recipients after `progress`'s cursor until enough wait to be sent;
    /// answers whether every recipient has its delivery.
    private func expand(_ job: PushJob, from progress: PushJobProgress) async throws -> Bool {
        let configuration = setup.configuration
        let recipients = PushRecipients(storage: objects, query: job.query)
        var pending = progress.pending
        var cursor = progress.cursor
        while pending < configuration.fanOutAhead {
            try Task.checkCancellation()
            let query = recipients.pageQuery(after: cursor, limit: configuration.pageSize)
            let page = try await push.pushRecipients(query)
            let isLast = page.count < query.limit
            cursor = page.last?.installationId ?? cursor
            try await push.expandPushJob(
                job.id, recipients: page, cursor: cursor, isLast: isLast, badgeIncrement: job.badgeIncrement, now: clock.now)
            if isLast { return true }
            pending += page.count
        }
        return false
    }
}
