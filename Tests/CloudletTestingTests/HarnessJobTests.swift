import Cloudlet
import CloudletServer
import CloudletTesting
import Testing

/// Background jobs in the harness: a run to its end with its progress, a failure with its message,
/// and a job past its time limit on the manual clock.
@Suite("Harness jobs")
struct HarnessJobTests {
    static func registry() -> HookRegistry {
        var hooks = HookRegistry()
        hooks.job("archive") { request in
            let old = try await request.store.find(ParseQuery("Post", constraints: ["old": true]))
            for post in old { try await request.store.delete("Post", id: post.objectId!) }
            try await request.progress("archived \(old.count) posts as run \(request.jobId)")
        }
        hooks.job("refuse") { _ in throw HookError.failed("nothing to do") }
        hooks.job("forever", timeLimit: .minutes(2)) { _ in await TimeLimitTests.hang() }
        hooks.job("purge", input: Purge.self) { purge, request in
            try await request.progress("purging posts older than \(purge.olderThanDays) days")
        }
        return hooks
    }

    @Test func aJobRunsToItsEndWithItsProgress() async throws {
        let harness = try HookHarness(registry: Self.registry())
        try await harness.create("Post", ["old": true])
        try await harness.create("Post", ["old": false])
        let run = try await harness.runJob("archive")
        #expect(run["status"] == "succeeded")
        #expect(run["message"] == .string("archived 1 posts as run \(run.objectId!)"))
        #expect(run["jobName"] == "archive")
        #expect(try await harness.find(ParseQuery("Post")).count == 1)
        #expect(harness.counts(.job, "archive").invocations == 1)
    }

    @Test func aFailedJobKeepsItsMessage() async throws {
        let harness = try HookHarness(registry: Self.registry())
        let id = try await harness.startJob("refuse", ["why": "test"])
        let run = try await harness.waitForJob(id)
        #expect(run["status"] == "failed")
        #expect(run["message"] == "nothing to do")
        #expect(run["params"] == ["why": "test"])
    }

    @Test func aJobPastItsTimeLimitFails() async throws {
        let harness = try HookHarness(registry: Self.registry())
        let id = try await harness.startJob("forever")
        try await harness.waitForInvocations(.job, "forever")
        harness.clock.advance(by: .seconds(119))
        #expect(try await harness.jobStatus(id)?["status"] == "running")
        harness.clock.advance(by: .seconds(1))
        let run = try await harness.waitForJob(id)
        #expect(run["status"] == "failed")
        #expect(run["message"]?.stringValue?.contains("timed out") == true)
        #expect(harness.counts(.job, "forever").timeouts == 1)
    }

    struct Purge: Decodable, Sendable { var olderThanDays: Int }

    @Test func aHooksStoreCannotForgeARunEvenAsTheMasterKey() async throws {
        var hooks = Self.registry()
        hooks.function("forge") { request in
            let forged = ParseObject(className: "_JobStatus", fields: ["jobName": "archive", "status": "succeeded"])
            return .object(try await request.store.asMaster.save(forged).json)
        }
        let harness = try HookHarness(registry: hooks)
        let error = try await #require(throws: ParseError.self) { try await harness.call("forge") }
        #expect(error.code == 119)
        #expect(try await harness.find(ParseQuery("_JobStatus")).isEmpty)
    }

    @Test func aTypedJobGetsItsParametersDecodedOrFailsWithTheReason() async throws {
        let harness = try HookHarness(registry: Self.registry())
        #expect(try await harness.runJob("purge", ["olderThanDays": 30])["message"] == "purging posts older than 30 days")
        let refused = try await harness.runJob("purge", ["olderThanDays": "thirty"])
        #expect(refused["status"] == "failed")
        #expect(refused["message"] == "invalid parameters for purge: wrong type for field olderThanDays")
    }

    @Test func theDefaultTimeLimitIsFifteenMinutes() {
        var hooks = HookRegistry()
        hooks.job("cleanup") { _ in }
        #expect(hooks.summary.first?.timeLimit == .seconds(900))
        #expect(HookKind.job.defaultTimeLimit == .minutes(15))
    }
}
