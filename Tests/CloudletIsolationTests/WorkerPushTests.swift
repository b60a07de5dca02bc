import Cloudlet
import CloudletTesting
import Foundation
import Testing
@testable import cloudlet_fixture

/// A before hook in an in-memory worker records its push over the wire, as a store call; the job
/// commits with the object, or vanishes with it.
@Suite struct WorkerPushTests {
    @Test func aWorkersBeforeHookPushCommitsOrVanishesWithTheSave() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            try await harness.install(installationId: "ops-phone", deviceToken: "tok", channels: ["ops"])
            try await harness.create("Alerted", ["n": 1])
            await #expect(throws: ParseError.self) { try await harness.create("Alerted", ["refuse": true]) }
            let pushes = try await harness.pushes()
            #expect(pushes.count == 1)
            #expect(pushes.first?.recipients.map(\.installationId) == ["ops-phone"])
            #expect(try await harness.find(ParseQuery("Alerted")).count == 1)
        }
    }
}
