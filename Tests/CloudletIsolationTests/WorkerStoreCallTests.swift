import Cloudlet
import CloudletTesting
import Foundation
import Testing
@testable import cloudlet_fixture

/// A hook's store call travels from its worker to the host and runs there, through the store of the
/// hook's invocation.
@Suite struct WorkerStoreCallTests {
    @Test func anAfterHooksSaveInAWorkerRunsOnTheHost() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            let saved = try await harness.create("Crash", ["note": "no crash"])
            let logs = try await harness.find(ParseQuery("CrashLog"))
            #expect(logs.map { $0["savedId"] } == [saved.objectId.map(ParseValue.string)], "the after hook's store.asMaster.save reached the host")
        }
    }

    @Test func aHookInAWorkerReadsTheConfigAsItsCallerMay() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            try await harness.updateConfig(["welcome": "hi", "apiSecret": "s3cr3t"], masterKeyOnly: ["apiSecret": true])
            let answer = try await harness.call("config", as: .anonymous)
            #expect(answer == ["caller": ["welcome": "hi"], "master": ["welcome": "hi", "apiSecret": "s3cr3t"]])
        }
    }
}
