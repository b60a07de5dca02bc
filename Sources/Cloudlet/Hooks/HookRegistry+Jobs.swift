/// The registration method of background jobs: it adapts ``JobRequest`` to the registry's one
/// ``HookRegistry/Call``.
extension HookRegistry {
    /// A background job: runs for `POST /jobs/:name` or on its schedule; throwing fails the run.
    public typealias JobHandler = @Sendable (JobRequest) async throws -> Void

    /// Runs `handler` in the background for `POST /jobs/<name>` (master key only) and on the
    /// schedule the operator sets for `name`. The caller gets the run's `_JobStatus` id at once; the
    /// run ends `succeeded`, or `failed` with the error's message, or is stopped at its time limit
    /// (15 minutes unless `timeLimit` says otherwise, within the app's cap).
    ///
    /// ```swift
    /// hooks.job("cleanup", timeLimit: .minutes(15)) { request in
    ///     try await request.progress("removing stale sessions")
    /// }
    /// ```
    public mutating func job(_ name: String, timeLimit: Duration = HookKind.job.defaultTimeLimit, _ handler: @escaping JobHandler) {
        register(.job, name, timeLimit: timeLimit) { call in
            try await handler(JobRequest(params: call.input.objectValue ?? [:], context: call.context))
            return .null
        }
    }
}
