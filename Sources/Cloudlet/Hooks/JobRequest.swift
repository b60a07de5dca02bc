/// What a background job receives: the parameters it was started with, and a way to report how far
/// it has got.
public struct JobRequest: HookRequest {
    /// The JSON body of `POST /jobs/:name`; empty for a scheduled run.
    public let params: [String: ParseValue]
    /// The call's context.
    public let context: HookContext

    package init(params: [String: ParseValue], context: HookContext) {
        self.params = params
        self.context = context
    }

    /// The id of this run's `_JobStatus`, as `POST /jobs/:name` answered it.
    public var jobId: String { context.eventId ?? "" }

    /// Sets `message` as the run's `message` in `_JobStatus` while it runs (the master key reads it,
    /// as does `cloudlet jobs status`). Messages longer than 1,024 characters are cut.
    public func progress(_ message: String) async throws {
        guard let reporter = context.store as? any JobProgressReporter else {
            throw ParseError.failed("this store cannot record a job's progress")
        }
        try await reporter.reportJobProgress(message)
    }
}

extension Duration {
    /// `minutes` minutes, for job time limits: `.minutes(15)`.
    public static func minutes(_ minutes: Int) -> Duration { .seconds(minutes * 60) }
}

/// A store that can record the progress of the job whose call it serves: the host's, and the
/// one a worker hands its hooks (which sends the message to the host).
package protocol JobProgressReporter: Sendable {
    /// Records `message` on the job's `_JobStatus`; throws when the call is not a job's.
    func reportJobProgress(_ message: String) async throws
}
