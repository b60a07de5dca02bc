import Cloudlet
import Foundation

/// An app's background jobs: each run is recorded in `_JobStatus` and queued in one transaction,
/// then run by the app's ``AppWorkService`` under the job's time limit (or, for `cloudlet invoke`,
/// in the caller's task), at least once.
public struct BackgroundJobs: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Records a run of the job `name` with `params` as `running` in `_JobStatus` and queues it, in
    /// one transaction, and returns the run's id at once: the app's ``AppWorkService`` runs it under
    /// its time limit, and runs it again if the server stops before it ended (at least once).
    /// Throws 141 "Invalid job." for a job the app does not have, and 503/155 when
    /// ``AppRuntime/Limits/maximumRunningJobs`` run already (or, with `exclusive`, when the job
    /// runs already: ``JobAlreadyRunning``).
    public func start(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, caller: Caller, exclusive: Bool = false
    ) async throws -> String {
        try await recordStart(name, params: params, source: source, caller: caller, exclusive: exclusive, heldBy: nil).id
    }

    /// Runs the job `name` as ``start(_:params:source:caller:exclusive:)`` does, but in this task,
    /// and returns only once it has ended, with its `_JobStatus` as it ended (for `cloudlet invoke
    /// job:<name>`). Its queued row is held by this call until past the job's time limit: if the
    /// process ends first, a server runs the job again.
    public func runToEnd(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseObject {
        let owner = "run-" + UUID().uuidString
        let (hook, id) = try await recordStart(name, params: params, source: .api, caller: caller, exclusive: false, heldBy: owner)
        if await run(hook, id: id, params: params, caller: caller) {
            try await app.stores.work.complete(id, owner: owner)
        } else {
            try await app.stores.work.release([id], owner: owner, at: app.clock.now)
        }
        guard let status = try await app.stores.objects.fetch(JobStatus.className, id: id) else { throw ParseError.objectNotFound() }
        return status
    }

    /// Keeps `message` as the latest progress of the run `id`, while it runs.
    func recordProgress(_ message: String, of id: String) async throws {
        try await app.stores.jobs.updateRunningJob(id, fields: ["message": .string(JobStatus.cut(message))], updatedAt: app.clock.now)
    }

    /// Runs the queued run `work` of a job: its payload names the job, its parameters and the
    /// request that started it; its id is the run's `_JobStatus` id.
    func runQueued(_ work: ClaimedWork) async -> WorkOutcome {
        let name = work.payload["name"]?.stringValue ?? ""
        let params = work.payload["params"]?.objectValue ?? [:]
        let ending: String
        if work.attempts > JobStatus.maximumAttempts {
            ending = "the server stopped while the job ran, \(JobStatus.maximumAttempts) times"
        } else if let hook = HookRunner(app).hook(.job, name) {
            let caller = Caller(isMaster: true, requestId: work.payload["requestId"]?.stringValue ?? work.id)
            return await run(hook, id: work.id, params: params, caller: caller) ? .done : .released
        } else {
            ending = "the app no longer has the job \(name)"
        }
        await recordEnd(JobStatus.ended(.failed, message: ending, at: app.clock.now), of: work.id, name: name)
        return .done
    }

    /// Records a run of the job `name` as running and queues it (held by `heldBy` when given);
    /// answers the job and the run's id.
    private func recordStart(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, caller: Caller, exclusive: Bool, heldBy: String?
    ) async throws -> (hook: HookRegistry.Summary, id: String) {
        guard let hook = HookRunner(app).hook(.job, name) else { throw ParseError(code: 141, message: "Invalid job.", httpStatus: 400) }
        let id = ObjectId.new()
        let now = app.clock.now
        let status = JobStatus.running(id: id, jobName: name, source: source, params: params, at: now)
        let payload: ParseValue = ["name": .string(name), "params": .object(params), "requestId": .string(caller.requestId)]
        // Held by its caller, the row is its own until well past the job's time limit.
        let due = heldBy == nil ? now : now.addingTimeInterval(hook.timeLimit.seconds + 60)
        let work = NewWork(id: id, kind: .job, payload: payload, due: due, heldBy: heldBy)
        switch try await app.stores.jobs.recordJobStart(status, work: work, maximumRunning: app.limits.maximumRunningJobs, exclusive: exclusive) {
        case .started:
            return (hook, id)
        case .tooManyRunning:
            throw ParseError.unavailable("\(app.limits.maximumRunningJobs) jobs are running already; retry later", code: 155)
        case .alreadyRunning:
            throw JobAlreadyRunning(job: name)
        }
    }

    /// Runs the recorded run `id` of the job `hook` and records how it ended; answers false, with
    /// nothing recorded, when the run was cancelled before it ended (its server stops).
    private func run(_ hook: HookRegistry.Summary, id: String, params: [String: ParseValue], caller: Caller) async -> Bool {
        var jobCaller = caller
        jobCaller.jobRun = id
        let ending: [String: ParseValue]
        do {
            _ = try await HookRunner(app).run(hook, input: HookPayload(.object(params)), caller: jobCaller, eventId: id)
            ending = JobStatus.ended(.succeeded, message: nil, at: app.clock.now)
        } catch let error as ParseError {
            ending = JobStatus.ended(.failed, message: error.message, at: app.clock.now)
        } catch {
            ending = JobStatus.ended(.failed, message: "job \(hook.name) failed", at: app.clock.now)
        }
        guard !Task.isCancelled else { return false }
        await recordEnd(ending, of: id, name: hook.name)
        return true
    }

    /// Sets `ending` on the run `id` of the job `name`, logging a failure to.
    private func recordEnd(_ ending: [String: ParseValue], of id: String, name: String) async {
        do {
            try await app.stores.jobs.updateRunningJob(id, fields: ending, updatedAt: app.clock.now)
        } catch {
            app.logger.error("could not record the end of a job", metadata: ["job": "\(name)", "jobId": "\(id)", "error": "\(error)"])
        }
    }
}

/// A scheduled run came due while the job still ran: it is skipped.
public struct JobAlreadyRunning: Error, Sendable {
    /// The job's name.
    public let job: String
}
