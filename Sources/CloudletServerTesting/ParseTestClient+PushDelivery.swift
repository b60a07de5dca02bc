import Cloudlet
import CloudletServer
import CloudletTesting
import Logging

extension ParseTestClient {
    /// Like ``withRouter(_:configuration:_:)``, with the server's work service delivering push
    /// beside the router as `serve` runs it: jobs recorded by hooks or `POST /push` are sent through
    /// the app's providers — the log provider, by default — and the server's log lines (the log
    /// provider's `push notification (log provider)` among them) land in `logs`.
    ///
    /// ```swift
    /// let logs = CapturedLogs()
    /// try await ParseTestClient.withRouter(AppHooks.self, deliveringPushesLoggingTo: logs) { client in
    ///     _ = try await client.post("/push", ["channels": ["news"], "data": ["alert": "Hi"]], master: true)
    ///     let job = try #require(try await client.endedPushJobs().first)
    ///     #expect(job["numSent"] == 1)
    /// }
    /// ```
    public static func withRouter<Module: HookModule, Value: Sendable>(
        _ module: Module.Type, configuration: ServerConfiguration = .testing, deliveringPushesLoggingTo logs: CapturedLogs,
        _ body: @Sendable (ParseTestClient) async throws -> Value
    ) async throws -> Value {
        var logger = logs.logger(label: "cloudlet")
        logger.logLevel = .info
        return try await withRouter(registry: Module.registry(), configuration: configuration, logger: logger, deliversPushes: true) { client, _ in
            try await body(client)
        }
    }

    /// Waits (in real time, up to `timeout`) until at least `count` push jobs exist and none is
    /// `pending` or `running`, and answers the `_PushStatus` objects, oldest first.
    public func endedPushJobs(count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [ParseValue] {
        let giveUp = ContinuousClock.now + timeout
        while true {
            let reply = try await get("/classes/_PushStatus", query: ["order": "createdAt"], master: true)
            let jobs = reply["results"]?.arrayValue ?? []
            if jobs.count >= count, !jobs.contains(where: { ["pending", "running"].contains($0["status"]?.stringValue) }) { return jobs }
            guard ContinuousClock.now < giveUp else {
                throw ParseError.failed("push jobs did not end within \(timeout): \(JSONWriter.string(reply.body))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
