import Cloudlet
import Foundation
import Logging

/// One app's delivery loop: starts its due jobs and writes their recipients as deliveries a few
/// pages ahead of the sends (``AppPushDelivery+Jobs``), claims due deliveries in batches with a
/// lease, sends at most ``PushDeliveryConfiguration/concurrency`` at once through the app's
/// providers, and records the results in batches. Claims and records run beside the sends (one
/// claim and one batch at a time), so the sends never wait for the database. It
/// holds at most twice the concurrency of claimed deliveries and their results, however large the
/// job.
///
/// With no job running it polls nothing: it sleeps until a job is recorded
/// (``PushDeliveryStorage/pushJobRecorded``) or until the earliest time it knows work falls due (a
/// retry, a lease's end, a scheduled job's start, a running job's expiration).
struct AppPushDelivery: Sendable {
    let appId: String
    let apps: PushDeliveryApps
    let configuration: PushDeliveryConfiguration
    let clock: any CloudletClock
    let logger: Logger

    /// A job as the loop knows it: ready to send, or failed with a reason.
    enum JobEntry: Sendable {
        case ready(PushJob)
        case failed(String)
    }

    private enum Event: Sendable {
        /// The poll interval passed, while sends were in flight or results waited.
        case tick
        /// Work fell due: a delivery, a scheduled job's start or a running job's expiration.
        case due
        /// A job was recorded, or the app was changed or removed.
        case signalled
        /// A send ended.
        case sent(PushDeliveryResult)
        /// A batch of results was recorded.
        case recorded
        /// A claim of at most `wanted` deliveries ended.
        case claimed(PushDeliveryClaim, wanted: Int)
    }

    /// Runs until the task is cancelled or the app is no longer served.
    func run() async {
        guard let first = apps.app(appId) else { return }
        do {
            try await first.storage.releasePushLeases(now: clock.now)
        } catch {
            report("could not release push delivery claims", error)
        }
        var jobs: [String: JobEntry] = [:]
        await withTaskGroup(of: Event.self) { group in
            var queue = ArraySlice<PushDelivery>()
            var inFlight = 0
            var results: [PushDeliveryResult] = []
            var isTicking = false
            // Whether a task waits for the storage's signal.
            var isListening = false
            // The earliest wake set for work that falls due, if any.
            var dueWake: Date?
            var isRecording = false
            // Set by the tick: results wait at most a poll interval.
            var isRecordDue = false
            var jobsDue = true
            var claims = ClaimGate()
            while !Task.isCancelled, let app = apps.app(appId) {
                if !isListening {
                    isListening = true
                    group.addTask {
                        await app.storage.pushJobRecorded.wait()
                        return .signalled
                    }
                }
                if jobsDue {
                    jobsDue = false
                    let managed = await manageJobs(app, &jobs)
                    if managed.wroteDeliveries { claims.deliveriesMayBeDue() }
                    if let due = managed.nextDueAt { wake(at: due, &dueWake, &group) }
                }
                if claims.mayStart, queue.count <= configuration.concurrency / 2 {
                    let wanted = 2 * configuration.concurrency - queue.count - inFlight
                    claims.started()
                    group.addTask { .claimed(await claim(app, limit: wanted), wanted: wanted) }
                }
                while inFlight < configuration.concurrency, let delivery = queue.popFirst() {
                    let now = clock.now
                    // A claim that ran out is due again, and will be claimed afresh.
                    guard delivery.leaseUntil > now else { continue }
                    switch await prepare(delivery, app, &jobs, now: now) {
                    case .resolved(let resolution):
                        results.append(PushDeliveryResult(delivery, resolution))
                    case .send(let provider, let message):
                        inFlight += 1
                        group.addTask {
                            let outcome = await provider.send(message)
                            let resolution = PushDeliveryResolution(outcome, of: delivery, now: clock.now, configuration: configuration)
                            return .sent(PushDeliveryResult(delivery, resolution))
                        }
                    }
                }
                if !isRecording, !results.isEmpty, results.count >= configuration.resultsPerTransaction || inFlight == 0 || isRecordDue {
                    isRecording = true
                    isRecordDue = false
                    let batch = results
                    results.removeAll(keepingCapacity: true)
                    group.addTask {
                        await record(batch, app)
                        return .recorded
                    }
                }
                // Deliveries ended without a send (expired, no provider) leave nothing to wait for.
                if inFlight == 0, !isRecording, queue.isEmpty, claims.mayStart { continue }
                // Idle, the loop sleeps until a signal or a due time; busy, or while a job it knows
                // of runs (its retries fall due), it ticks as well.
                if !isTicking, inFlight > 0 || !results.isEmpty || isRecording || !queue.isEmpty || !jobs.isEmpty {
                    isTicking = true
                    group.addTask { await Self.event(.tick, after: configuration.pollInterval) }
                }
                switch await group.next() {
                case .tick:
                    isTicking = false
                    jobsDue = true
                    claims.deliveriesMayBeDue()
                    isRecordDue = true
                case .due:
                    if let wake = dueWake, wake <= clock.now { dueWake = nil }
                    jobsDue = true
                    claims.deliveriesMayBeDue()
                case .signalled:
                    isListening = false
                    jobsDue = true
                    claims.deliveriesMayBeDue()
                case .recorded:
                    isRecording = false
                    claims.deliveriesMayBeDue()
                    // The last results of a job may have been recorded: end it now rather than at the tick.
                    if inFlight == 0, queue.isEmpty { jobsDue = true }
                case .claimed(let claim, let wanted):
                    queue.append(contentsOf: claim.deliveries)
                    claims.ended(full: claim.deliveries.count == wanted)
                    // A short claim may mean the fan-out fell behind the sends: write the next pages now rather than at the tick.
                    if claim.deliveries.count < wanted { jobsDue = true }
                    // A retry or a lease's end is claimed when it falls due.
                    if let due = claim.nextDueAt { wake(at: due, &dueWake, &group) }
                case .sent(let result):
                    inFlight -= 1
                    results.append(result)
                    if case .jobFailed(let reason) = result.resolution { jobs[result.delivery.jobId] = .failed(reason) }
                case nil:
                    break
                }
            }
            group.cancelAll()
        }
    }

    /// Wakes the loop at `due` with ``Event/due``, unless a wake at or before it is set (`dueWake`).
    private func wake(at due: Date, _ dueWake: inout Date?, _ group: inout TaskGroup<Event>) {
        guard dueWake.map({ due < $0 }) ?? true else { return }
        dueWake = due
        group.addTask { [clock] in
            await clock.sleep(until: due)
            return .due
        }
    }

    /// `event`, once `duration` has passed (or the loop is being stopped).
    private static func event(_ event: Event, after duration: Duration) async -> Event {
        try? await Task.sleep(for: duration)
        return event
    }

    private enum Preparation {
        case resolved(PushDeliveryResolution)
        case send(any PushProvider, PushMessage)
    }

    /// What to do with `delivery` now: send it, or end it without a send (its job failed or
    /// expired, or no provider takes its device type).
    private func prepare(_ delivery: PushDelivery, _ app: PushDeliveryApp, _ jobs: inout [String: JobEntry], now: Date) async -> Preparation {
        let job: PushJob
        switch await entry(delivery.jobId, app, &jobs) {
        case .failed(let reason): return .resolved(.jobFailed(reason: reason))
        case .ready(let ready): job = ready
        }
        if let expiration = job.expiration, expiration <= now { return .resolved(.expired) }
        guard let provider = app.providers.provider(for: delivery.deviceType) else { return .resolved(.failed(reason: "NoProvider")) }
        var data = job.data
        if let badge = delivery.badge { data["badge"] = .number(Double(badge)) }
        let message = PushMessage(
            id: delivery.key, deviceType: delivery.deviceType, token: delivery.token, pushType: delivery.pushType, data: data,
            expiration: job.expiration, collapseId: job.collapseId)
        return .send(provider, message)
    }

    /// The job `id`, read from its `_PushStatus` object the first time it is needed.
    func entry(_ id: String, _ app: PushDeliveryApp, _ jobs: inout [String: JobEntry]) async -> JobEntry {
        if let known = jobs[id] { return known }
        let entry: JobEntry
        do {
            if let object = try await app.storage.fetch("_PushStatus", id: id) {
                entry = .ready(try PushJob(object))
            } else {
                entry = .failed("the job was deleted")
            }
        } catch {
            entry = .failed(Self.message(of: error))
        }
        jobs[id] = entry
        return entry
    }

    private func claim(_ app: PushDeliveryApp, limit: Int) async -> PushDeliveryClaim {
        let now = clock.now
        do {
            return try await app.storage.claimPushDeliveries(
                now: now, leaseUntil: now.addingTimeInterval(configuration.lease.seconds), limit: limit)
        } catch {
            report("could not claim push deliveries", error)
            // Claimed again after a poll interval.
            return PushDeliveryClaim(deliveries: [], nextDueAt: now.addingTimeInterval(configuration.pollInterval.seconds))
        }
    }

    /// Records `results` in one transaction, even if the loop is being stopped (results kept are
    /// sends not repeated). If that fails, the deliveries stay claimed until their lease runs out,
    /// and are sent again then.
    private func record(_ results: [PushDeliveryResult], _ app: PushDeliveryApp) async {
        let recording = Task { [clock] in try await app.storage.recordPushResults(results, now: clock.now) }
        do {
            try await recording.value
        } catch {
            report("could not record push results", error)
        }
    }

    /// Logs `error` unless it is the loop being stopped.
    func report(_ message: Logger.Message, _ error: any Error) {
        guard !Task.isCancelled, !(error is CancellationError) else { return }
        logger.error(message, metadata: ["error": "\(error)"])
    }

    /// The text kept for `error`: a Parse error's message, else its description.
    static func message(of error: any Error) -> String {
        (error as? ParseError)?.message ?? String(describing: error)
    }
}

/// When the delivery loop may claim: one claim at a time, and after a claim that came back short
/// only once deliveries may have become due (new pages written, results recorded, the poll
/// interval passed), counting what happened while that claim ran.
struct ClaimGate {
    private var isClaiming = false
    private var mayClaim = true
    private var becameDueDuringClaim = false

    /// Whether a claim may start now.
    var mayStart: Bool { mayClaim && !isClaiming }

    mutating func started() {
        isClaiming = true
        becameDueDuringClaim = false
    }

    /// Deliveries may have become due.
    mutating func deliveriesMayBeDue() {
        mayClaim = true
        if isClaiming { becameDueDuringClaim = true }
    }

    /// The claim ended, with as many deliveries as it wanted (`full`) or fewer.
    mutating func ended(full: Bool) {
        isClaiming = false
        mayClaim = full || becameDueDuringClaim
    }
}
