import Cloudlet
import CloudletServer
import CloudletTesting
import Testing

@Suite("The hook harness: files")
struct HarnessFileTests {
    @Test func aHarnessUploadsFilesThatObjectsMayThenHold() async throws {
        let harness = try HookHarness(registry: HookRegistry())
        let stored = try await harness.upload("notes.txt", Array("hello".utf8))
        #expect(stored.name.hasSuffix("_notes.txt"))
        #expect(stored.contentType == "text/plain")
        #expect(stored.size == 5)
        #expect(try await harness.download(stored.name) == Array("hello".utf8))
        let note = try await harness.create("Notes", ["attachment": ["__type": "File", "name": .string(stored.name)]])
        #expect(note["attachment"]?["name"] == .string(stored.name))

        await #expect(throws: ParseError.self) { try await harness.deleteFile(stored.name, as: .anonymous) }
        try await harness.deleteFile(stored.name)
        #expect(try await harness.download(stored.name) == nil)
        let error = try await #require(throws: ParseError.self) {
            try await harness.create("Notes", ["attachment": ["__type": "File", "name": .string(stored.name)]])
        }
        #expect(error.code == 111)
    }
}
