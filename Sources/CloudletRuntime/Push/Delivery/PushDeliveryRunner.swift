import Cloudlet
import Foundation
import Logging

/// Runs one claimed row of an app's push work (``WorkKind/pushDelivery``), as the app's
/// ``AppWorkService`` hands it over: a job's fan-out (see ``fanOut(_:attempts:)``), or one delivery,
/// sent through the app's provider for its device type and its outcome recorded with the job's
/// counts in the transaction that ends its row.
///
/// A delivery the provider asks to retry is due again after the provider's Retry-After, else after
/// the configuration's ``Backoff``, until it has had ``PushDeliveryConfiguration/maximumAttempts``;
/// it then fails with the last reason. Stopped before its outcome is known, it is handed back
/// (sent again by the next run, with the same ``PushMessage/id``).
struct PushDeliveryRunner: Sendable {
    let objects: any ObjectStorage
    let push: any PushDeliveryStorage
    let setup: PushDeliverySetup
    let clock: any CloudletClock
    let logger: Logger

    /// A job as its `_PushStatus` object reads: ready to send, or failed with a reason.
    enum JobEntry: Sendable {
        case ready(PushJob)
        case failed(String)
    }

    /// Runs `work`, and answers what becomes of its row.
    func run(_ work: ClaimedWork) async -> WorkOutcome {
        if let delivery = PushDelivery(work) { return await deliver(delivery, owner: work.owner) }
        guard let job = work.payload["job"]?.stringValue else {
            logger.error("dropped a push delivery without a job", metadata: ["work": "\(work.id)"])
            return .done
        }
        return await fanOut(job, attempts: work.attempts)
    }

    /// Sends `delivery` (or ends it unsent: its job failed or expired, or no provider takes its
    /// device type) and records how it went.
    private func deliver(_ delivery: PushDelivery, owner: String) async -> WorkOutcome {
        let resolution: PushDeliveryResolution
        let job: JobEntry
        do {
            job = try await entry(delivery.jobId)
        } catch {
            return .released
        }
        switch job {
        case .failed(let reason):
            resolution = .jobFailed(reason: reason)
        case .ready(let job):
            if let expiration = job.expiration, expiration <= clock.now {
                resolution = .expired
            } else if let provider = setup.providers().provider(for: delivery.deviceType) {
                let outcome = await provider.send(message(for: delivery, of: job))
                resolution = PushDeliveryResolution(outcome, attempts: delivery.attempts, now: clock.now, configuration: setup.configuration)
            } else {
                resolution = .failed(reason: "NoProvider")
            }
        }
        if case .retry(_, let due) = resolution { return Task.isCancelled ? .released : .retry(at: due) }
        // Recorded even when the loop is being stopped: a result kept is a send not repeated. The
        // write is one short transaction, awaited here.
        let recording = Task { [push, clock] in
            try await push.recordPushResult(PushDeliveryResult(delivery, resolution), owner: owner, now: clock.now)
        }
        do {
            _ = try await recording.value
            return .done
        } catch {
            report("could not record a push delivery's outcome", error)
            return Task.isCancelled ? .released : .retry(at: setup.configuration.backoff.due(afterAttempt: 1, failedAt: clock.now))
        }
    }

    /// The notification of `delivery`, with its job's data and, for an incremented badge, its own.
    private func message(for delivery: PushDelivery, of job: PushJob) -> PushMessage {
        var data = job.data
        if let badge = delivery.badge { data["badge"] = .number(Double(badge)) }
        return PushMessage(
            id: delivery.key, deviceType: delivery.deviceType, token: delivery.token, pushType: delivery.pushType, data: data,
            expiration: job.expiration, collapseId: job.collapseId)
    }

    /// The job `id`, read from its `_PushStatus` object. Throws only when the loop is being stopped.
    func entry(_ id: String) async throws -> JobEntry {
        do {
            guard let object = try await objects.fetch("_PushStatus", id: id) else { return .failed("the job was deleted") }
            return .ready(try PushJob(object))
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            return .failed((error as? ParseError)?.message ?? String(describing: error))
        }
    }

    /// Logs `error` unless it is the loop being stopped.
    func report(_ message: Logger.Message, _ error: any Error) {
        guard !Task.isCancelled, !(error is CancellationError) else { return }
        logger.error(message, metadata: ["error": "\(error)"])
    }
}
