import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// `POST /jobs/:name` and `_JobStatus`: an answer at once with the run's id, the master key only,
/// Parse's error for an unknown job, and each run's way from `running` to how it ended.
@Suite("POST /jobs")
struct JobRouteTests {
    static let statusIdHeader = HTTPField.Name("X-Parse-Job-Status-Id")!

    /// `held` waits at the gate; `tidy` reports progress and succeeds; `broken` fails with a message.
    /// Each has a limit within the app's default cap (60 s).
    static func registry(_ gate: JobGate) -> HookRegistry {
        var hooks = HookRegistry()
        hooks.job("held", timeLimit: .seconds(30)) { _ in await gate.wait() }
        hooks.job("tidy", timeLimit: .seconds(30)) { request in
            try await request.progress("swept \(request.params["rooms"]?.intValue ?? 0) rooms")
        }
        hooks.job("broken", timeLimit: .seconds(30)) { request in
            try await request.progress("started")
            throw HookError.validation("the cupboard is locked")
        }
        hooks.function("peek") { request in
            // A hook may not report progress: it is no job.
            try await JobRequest(params: [:], context: request.context).progress("sneaky")
            return "reported"
        }
        return hooks
    }

    /// Runs `body` with a client of a server of ``registry(_:)``'s hooks, its data on `store`, and their gate.
    static func withClient(_ store: TestStore, _ body: @Sendable (ParseTestClient, JobGate) async throws -> Void) async throws {
        let gate = JobGate()
        try await store.withRouter(registry: registry(gate)) { client in
            try await body(client, gate)
        }
    }

    /// The run's `_JobStatus` once it is no longer running (giving up after a minute).
    static func ended(_ client: ParseTestClient, _ id: String) async throws -> ParseValue {
        let giveUp = ContinuousClock.now + .seconds(60)
        while true {
            let reply = try await client.get("/classes/_JobStatus/\(id)", master: true)
            #expect(reply.status == 200, "\(reply.body)")
            if reply["status"] != "running" { return reply.body }
            guard ContinuousClock.now < giveUp else { throw ParseError.failed("job \(id) still runs") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(arguments: TestStore.allCases) func aJobStartsAtOnceWithItsStatusIdAndEndsSucceeded(store: TestStore) async throws {
        try await Self.withClient(store) { client, gate in
            let reply = try await client.post("/jobs/held", ["batch": 7], master: true)
            #expect(reply.status == 200)
            let id = try #require(reply.headers[Self.statusIdHeader])
            #expect(reply.body == ["jobStatusId": .string(id)])
            let running = try await client.get("/classes/_JobStatus/\(id)", master: true)
            #expect(running["status"] == "running", "the answer came while the job waits: \(running.body)")
            #expect(running["jobName"] == "held")
            #expect(running["source"] == "api")
            #expect(running["params"] == ["batch": 7])
            #expect(running["finishedAt"] == nil)
            gate.open()
            let ended = try await Self.ended(client, id)
            #expect(ended["status"] == "succeeded")
            #expect(ended["finishedAt"]?["__type"] == "Date")
        }
    }

    @Test(arguments: TestStore.allCases) func progressIsKeptAndAFailureKeepsItsMessage(store: TestStore) async throws {
        try await Self.withClient(store) { client, _ in
            let tidy = try #require(try await client.post("/jobs/tidy", ["rooms": 3], master: true)["jobStatusId"]?.stringValue)
            let succeeded = try await Self.ended(client, tidy)
            #expect(succeeded["status"] == "succeeded")
            #expect(succeeded["message"] == "swept 3 rooms")
            let broken = try #require(try await client.post("/jobs/broken", master: true)["jobStatusId"]?.stringValue)
            let failed = try await Self.ended(client, broken)
            #expect(failed["status"] == "failed")
            #expect(failed["message"] == "the cupboard is locked")
        }
    }

    @Test(arguments: TestStore.allCases) func onlyTheMasterKeyStartsAJobOrReadsItsRuns(store: TestStore) async throws {
        try await Self.withClient(store) { client, gate in
            gate.open()
            Support.expectError(try await client.post("/jobs/tidy"), status: 403, code: 119)
            let id = try #require(try await client.post("/jobs/tidy", master: true)["jobStatusId"]?.stringValue)
            _ = try await Self.ended(client, id)
            #expect(try await client.get("/classes/_JobStatus")["results"] == [], "a client sees no runs")
            Support.expectError(try await client.get("/classes/_JobStatus/\(id)"), status: 404, code: 101)
            #expect(try await Support.masterCount(client, "_JobStatus") == 1)
        }
    }

    @Test(arguments: TestStore.allCases) func anUnknownJobIsParsesInvalidJob(store: TestStore) async throws {
        try await Self.withClient(store) { client, _ in
            let reply = try await client.post("/jobs/nothing", master: true)
            Support.expectError(reply, status: 400, code: 141)
            #expect(reply["error"] == "Invalid job.")
            #expect(try await Support.masterCount(client, "_JobStatus") == 0)
            Support.expectError(try await client.get("/jobs/tidy", master: true), status: 405, code: 119)
        }
    }

    @Test(arguments: TestStore.allCases) func noOneButTheServerWritesARun(store: TestStore) async throws {
        try await Self.withClient(store) { client, gate in
            gate.open()
            let id = try #require(try await client.post("/jobs/tidy", master: true)["jobStatusId"]?.stringValue)
            _ = try await Self.ended(client, id)
            Support.expectError(
                try await client.post("/classes/_JobStatus", ["jobName": "tidy", "status": "succeeded"], master: true), status: 403, code: 119)
            Support.expectError(try await client.put("/classes/_JobStatus/\(id)", ["status": "failed"], master: true), status: 403, code: 119)
            Support.expectError(try await client.delete("/classes/_JobStatus/\(id)", master: true), status: 403, code: 119)
            #expect(try await client.get("/classes/_JobStatus/\(id)", master: true)["status"] == "succeeded")
            let peek = try await client.post("/functions/peek")
            Support.expectError(peek, status: 400, code: 141)
        }
    }

    @Test(arguments: TestStore.allCases) func anAppRunsAtMostItsCapOfJobsAtOnce(store: TestStore) async throws {
        try await Self.withClient(store) { client, gate in
            for _ in 0..<AppRuntime.Limits().maximumRunningJobs {
                #expect(try await client.post("/jobs/held", master: true).status == 200)
            }
            let refused = try await client.post("/jobs/held", master: true)
            Support.expectError(refused, status: 503, code: 155)
            gate.open()
            let giveUp = ContinuousClock.now + .seconds(60)
            while try await Support.masterResults(client, "_JobStatus", query: ["where": ["status": "running"]]).count > 0 {
                guard ContinuousClock.now < giveUp else { throw ParseError.failed("the held jobs did not end") }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await client.post("/jobs/held", master: true).status == 200, "room again once they ended")
        }
    }
}
