import Cloudlet
import CloudletTesting
import Foundation
import Testing
@testable import cloudlet_fixture

/// An after hook marked to run after the response does so in an in-memory worker too: the worker
/// announces it in its hello, and the save answers before the hook has done its work.
@Suite struct WorkerAfterResponseTests {
    @Test func aWorkersAfterResponseHookRunsOnceTheClientHasItsAnswer() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            // The hook cannot write its mark before the gate exists. Had the save waited for the
            // hook, it would answer only after the hook gave up waiting (25 s), its mark written.
            let saved = try await harness.create("Later", ["n": 1, "gated": true])
            #expect(try await harness.find(ParseQuery("LaterMark")).isEmpty)
            _ = try await harness.create("LaterGate", [:])
            try await harness.waitForInvocations(.afterSave, "Later", timeout: .seconds(20))
            let end = ContinuousClock.now + .seconds(20)
            var marks: [ParseObject] = []
            while marks.isEmpty, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(100))
                marks = try await harness.find(ParseQuery("LaterMark"))
            }
            #expect(marks.map { $0["savedId"] } == [saved.objectId.map(ParseValue.string)])
        }
    }
}
