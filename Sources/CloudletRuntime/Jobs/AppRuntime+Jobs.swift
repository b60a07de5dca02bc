import Cloudlet
import Foundation

extension AppRuntime {
    /// Records a run of the job `name` with `params` as `running` in `_JobStatus` and queues it, in
    /// one transaction, and returns the run's id at once: the app's ``AppWorkService`` runs it under
    /// its time limit, and runs it again if the server stops before it ended (at least once).
    /// Throws 141 "Invalid job." for a job the app does not have, and 503/155 when
    /// ``Limits/maximumRunningJobs`` run already (or, with `exclusive`, when the job runs already:
    /// ``JobAlreadyRunning``).
    public func startJob(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, caller: Caller, exclusive: Bool = false
    ) async throws -> String {
        try await recordJobStart(name, params: params, source: source, caller: caller, exclusive: exclusive, heldBy: nil).id
    }

    /// Runs the job `name` as ``startJob(_:params:source:caller:exclusive:)`` does, but in this task,
    /// and returns only once it has ended, with its `_JobStatus` as it ended (for `cloudlet invoke
    /// job:<name>`). Its queued row is held by this call until past the job's time limit: if the
    /// process ends first, a server runs the job again.
    public func runJobToEnd(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseObject {
        let owner = "run-" + UUID().uuidString
        let (hook, id) = try await recordJobStart(name, params: params, source: .api, caller: caller, exclusive: false, heldBy: owner)
        if await runJob(hook, id: id, params: params, caller: caller) {
            try await stores.work.complete(id, owner: owner)
        } else {
            try await stores.work.release([id], owner: owner, at: clock.now)
        }
        guard let status = try await stores.objects.fetch(JobStatus.className, id: id) else { throw ParseError.objectNotFound() }
        return status
    }

    /// Keeps `message` as the latest progress of the run `id`, while it runs.
    func recordJobProgress(_ message: String, of id: String) async throws {
        try await stores.jobs.updateRunningJob(id, fields: ["message": .string(JobStatus.cut(message))], updatedAt: clock.now)
    }

    /// Runs the queued run `work` of a job: its payload names the job, its parameters and the
    /// request that started it; its id is the run's `_JobStatus` id.
    func runQueuedJob(_ work: ClaimedWork) async -> WorkOutcome {
        let name = work.payload["name"]?.stringValue ?? ""
        let params = work.payload["params"]?.objectValue ?? [:]
        let ending: String
        if work.attempts > JobStatus.maximumAttempts {
            ending = "the server stopped while the job ran, \(JobStatus.maximumAttempts) times"
        } else if let hook = hook(.job, name) {
            let caller = Caller(isMaster: true, requestId: work.payload["requestId"]?.stringValue ?? work.id)
            return await runJob(hook, id: work.id, params: params, caller: caller) ? .done : .released
        } else {
            ending = "the app no longer has the job \(name)"
        }
        await recordJobEnd(JobStatus.ended(.failed, message: ending, at: clock.now), of: work.id, name: name)
        return .done
    }

    /// Records a run of the job `name` as running and queues it (held by `heldBy` when given);
    /// answers the job and the run's id.
    private func recordJobStart(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, caller: Caller, exclusive: Bool, heldBy: String?
    ) async throws -> (hook: HookRegistry.Summary, id: String) {
        guard let hook = hook(.job, name) else { throw ParseError(code: 141, message: "Invalid job.", httpStatus: 400) }
        let id = newObjectId()
        let now = clock.now
        let status = JobStatus.running(id: id, jobName: name, source: source, params: params, at: now)
        let payload: ParseValue = ["name": .string(name), "params": .object(params), "requestId": .string(caller.requestId)]
        // Held by its caller, the row is its own until well past the job's time limit.
        let due = heldBy == nil ? now : now.addingTimeInterval(hook.timeLimit.seconds + 60)
        let work = NewWork(id: id, kind: .job, payload: payload, due: due, heldBy: heldBy)
        switch try await stores.jobs.recordJobStart(status, work: work, maximumRunning: limits.maximumRunningJobs, exclusive: exclusive) {
        case .started:
            return (hook, id)
        case .tooManyRunning:
            throw ParseError.unavailable("\(limits.maximumRunningJobs) jobs are running already; retry later", code: 155)
        case .alreadyRunning:
            throw JobAlreadyRunning(job: name)
        }
    }

    /// Runs the recorded run `id` of the job `hook` and records how it ended; answers false, with
    /// nothing recorded, when the run was cancelled before it ended (its server stops).
    private func runJob(_ hook: HookRegistry.Summary, id: String, params: [String: ParseValue], caller: Caller) async -> Bool {
        var jobCaller = caller
        jobCaller.jobRun = id
        let ending: [String: ParseValue]
        do {
            _ = try await runHook(hook, input: HookPayload(.object(params)), caller: jobCaller, eventId: id)
            ending = JobStatus.ended(.succeeded, message: nil, at: clock.now)
        } catch let error as ParseError {
            ending = JobStatus.ended(.failed, message: error.message, at: clock.now)
        } catch {
            ending = JobStatus.ended(.failed, message: "job \(hook.name) failed", at: clock.now)
        }
        guard !Task.isCancelled else { return false }
        await recordJobEnd(ending, of: id, name: hook.name)
        return true
    }

    /// Sets `ending` on the run `id` of the job `name`, logging a failure to.
    private func recordJobEnd(_ ending: [String: ParseValue], of id: String, name: String) async {
        do {
            try await stores.jobs.updateRunningJob(id, fields: ending, updatedAt: clock.now)
        } catch {
            logger.error("could not record the end of a job", metadata: ["job": "\(name)", "jobId": "\(id)", "error": "\(error)"])
        }
    }
}

/// A scheduled run came due while the job still ran: it is skipped.
public struct JobAlreadyRunning: Error, Sendable {
    /// The job's name.
    public let job: String
}
