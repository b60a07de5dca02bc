import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing
@testable import cloudlet_fixture

/// The four file hooks of the fixture, run in an in-memory worker through the harness.
@Suite struct WorkerFileHookTests {
    @Test func fileHooksRunInAWorkerRenameRefuseAndRecord() async throws {
        try await HookHarness.withInMemoryWorkers(registry: FixtureHooks.registry()) { (harness: HookHarness) async throws in
            let stored = try await harness.upload("notes.md", Array("# Notes".utf8))
            #expect(stored.name.hasSuffix("_checked-notes.md"))
            #expect(stored.contentType == "text/markdown")
            #expect(stored.metadata == ["checkedBy": "fixture", "sizeSeen": 7])
            #expect(try await harness.download(stored.name) == Array("# Notes".utf8))

            let refused = try await #require(throws: ParseError.self) { try await harness.upload("virus.exe", [1]) }
            #expect(refused.code == 142)
            #expect(refused.message == "no viruses")

            try await harness.deleteFile(stored.name)
            // The harness's clock stands still: both records have one time, so they are compared unordered.
            let log = try await harness.find(ParseQuery("FileLog"))
            #expect(log.compactMap { $0["event"]?.stringValue }.sorted() == ["deleted", "saved"])
            #expect(log.map { $0["name"] } == [.string(stored.name), .string(stored.name)])
            #expect(harness.counts(.beforeSaveFile, "").invocations == 2)
            #expect(harness.counts(.afterDeleteFile, "").invocations == 1)
        }
    }
}
