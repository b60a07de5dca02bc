import Cloudlet
import Foundation

extension AppRuntime {
    /// Records a run of the job `name` with `params` as `running` in `_JobStatus`, starts it in the
    /// background under its time limit, and returns the run's id at once. Throws 141 "Invalid job."
    /// for a job the app does not have, and 503/155 when ``Limits/maximumRunningJobs`` run already
    /// (or, with `exclusive`, when the job runs already: ``JobAlreadyRunning``).
    public func startJob(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, caller: Caller, exclusive: Bool = false
    ) async throws -> String {
        let (hook, id) = try await recordJobStart(name, params: params, source: source, exclusive: exclusive)
        Task { await self.runJob(hook, id: id, params: params, caller: caller) }
        return id
    }

    /// Runs the job `name` as ``startJob(_:params:source:caller:exclusive:)`` does, but returns only
    /// once it has ended, with its `_JobStatus` as it ended (for `cloudlet invoke job:<name>`).
    public func runJobToEnd(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseObject {
        let (hook, id) = try await recordJobStart(name, params: params, source: .api, exclusive: false)
        await runJob(hook, id: id, params: params, caller: caller)
        guard let status = try await storage.fetch(JobStatus.className, id: id) else { throw ParseError.objectNotFound() }
        return status
    }

    /// Keeps `message` as the latest progress of the run `id`, while it runs.
    func recordJobProgress(_ message: String, of id: String) async throws {
        try await storage.updateRunningJob(id, fields: ["message": .string(JobStatus.cut(message))], updatedAt: clock.now)
    }

    /// Records a run of the job `name` as running; answers the job and the run's id.
    private func recordJobStart(
        _ name: String, params: [String: ParseValue], source: JobStatus.Source, exclusive: Bool
    ) async throws -> (HookRegistry.Summary, String) {
        guard let hook = hook(.job, name) else { throw ParseError(code: 141, message: "Invalid job.", httpStatus: 400) }
        let id = newObjectId()
        let status = JobStatus.running(id: id, jobName: name, source: source, params: params, at: clock.now)
        switch try await storage.recordJobStart(status, maximumRunning: limits.maximumRunningJobs, exclusive: exclusive) {
        case .started:
            return (hook, id)
        case .tooManyRunning:
            throw ParseError.unavailable("\(limits.maximumRunningJobs) jobs are running already; retry later", code: 155)
        case .alreadyRunning:
            throw JobAlreadyRunning(job: name)
        }
    }

    /// Runs the recorded run `id` of the job `hook` and records how it ended.
    private func runJob(_ hook: HookRegistry.Summary, id: String, params: [String: ParseValue], caller: Caller) async {
        let name = hook.name
        var jobCaller = caller
        jobCaller.jobRun = id
        let ending: [String: ParseValue]
        do {
            _ = try await runHook(hook, input: HookPayload(.object(params)), caller: jobCaller, eventId: id)
            ending = JobStatus.ended(.succeeded, message: nil, at: clock.now)
        } catch let error as ParseError {
            ending = JobStatus.ended(.failed, message: error.message, at: clock.now)
        } catch {
            ending = JobStatus.ended(.failed, message: "job \(name) failed", at: clock.now)
        }
        do {
            try await storage.updateRunningJob(id, fields: ending, updatedAt: clock.now)
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
