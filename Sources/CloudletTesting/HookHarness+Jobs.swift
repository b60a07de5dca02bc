import Cloudlet
import CloudletRuntime

/// Background jobs in the harness: start one as `POST /jobs/:name` does, or run it to its end, and
/// read its `_JobStatus`.
///
/// ```swift
/// let run = try await harness.runJob("cleanup")
/// #expect(run["status"] == "succeeded")
/// ```
extension HookHarness {
    /// Starts the job `name` with `params` as the master key and returns its run's id at once; the
    /// job runs in the background, on the harness's clock.
    public func startJob(_ name: String, _ params: [String: ParseValue] = [:]) async throws -> String {
        try await runtime.jobs.start(name, params: params, source: .api, caller: Caller(isMaster: true, requestId: "harness"))
    }

    /// Runs the job `name` with `params` to its end and returns its `_JobStatus` as it ended.
    public func runJob(_ name: String, _ params: [String: ParseValue] = [:]) async throws -> ParseObject {
        try await runtime.jobs.runToEnd(name, params: params, caller: Caller(isMaster: true, requestId: "harness"))
    }

    /// The `_JobStatus` of the run `id`, as it is now.
    public func jobStatus(_ id: String) async throws -> ParseObject? {
        try await get(JobStatus.className, id: id)
    }

    /// Waits (in real time, up to `timeout`) until the run `id` has ended, and returns its `_JobStatus`.
    public func waitForJob(_ id: String, timeout: Duration = .seconds(10)) async throws -> ParseObject {
        let giveUp = ContinuousClock.now + timeout
        while true {
            if let status = try await jobStatus(id), status["status"]?.stringValue != JobStatus.State.running.rawValue { return status }
            guard ContinuousClock.now < giveUp else { throw ParseError.failed("job run \(id) did not end within \(timeout)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
