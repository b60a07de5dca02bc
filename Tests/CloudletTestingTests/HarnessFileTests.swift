import Cloudlet
import CloudletServer
import CloudletTesting
import Synchronization
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

@Suite("The hook harness: file hooks")
struct HarnessFileHookTests {
    /// What the after hooks saw, in order.
    final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Hooks that rename uploads, refuse executables, keep files marked `keep`, and note what ran.
    static func hooks(seen: Seen) -> HookRegistry {
        var hooks = HookRegistry()
        hooks.beforeSaveFile { request in
            guard !request.file.name.hasSuffix(".exe") else { throw HookError.validation("no executables") }
            request.file.name = "avatar-" + request.file.name
            request.file.contentType = "image/webp"
            request.file.metadata["owner"] = .string(request.user?.id ?? "-")
            if request.file.name.contains("keep") { request.file.metadata["keep"] = true }
            if request.file.name.contains("escape") { request.file.name = "../../host.sqlite" }
        }
        hooks.afterSaveFile { request in
            seen.append("saved \(request.file.name) \(request.file.size)")
            throw HookError.failed("an after hook's failure never fails the upload")
        }
        hooks.beforeDeleteFile { request in
            if request.file.metadata["keep"] == true { throw HookError.validation("kept") }
        }
        hooks.afterDeleteFile { request in seen.append("deleted \(request.file.name)") }
        return hooks
    }

    @Test func beforeSaveFileRenamesRetypesAndRefusesAndTheOthersSeeTheStoredFile() async throws {
        let seen = Seen()
        let harness = try HookHarness(registry: Self.hooks(seen: seen))
        let stored = try await harness.upload("me.png", [1, 2, 3, 4], as: .user("ada"))
        #expect(stored.name.wholeMatch(of: /[0-9a-f]{32}_avatar-me\.png/) != nil, "\(stored.name)")
        #expect(stored.contentType == "image/webp")
        #expect(stored.metadata == ["owner": "ada"])
        #expect(seen.all == ["saved \(stored.name) 4"])
        #expect(harness.counts(.afterSaveFile, "").failures == 1)

        let refused = try await #require(throws: ParseError.self) { try await harness.upload("tool.exe", [1]) }
        #expect(refused.code == 142)
        let escaped = try await #require(throws: ParseError.self) { try await harness.upload("escape.txt", [1]) }
        #expect(escaped.code == 122, "a hook's new name is checked like a client's")
        #expect(try await harness.runtime.context.fileStorage?.all().map(\.name) == [stored.name], "refused uploads leave nothing")

        let kept = try await harness.upload("keep.png", [9])
        let keptError = try await #require(throws: ParseError.self) { try await harness.deleteFile(kept.name) }
        #expect(keptError.code == 142)
        #expect(try await harness.download(kept.name) == [9])
        try await harness.deleteFile(stored.name)
        #expect(seen.all.last == "deleted \(stored.name)")
        #expect(try await harness.download(stored.name) == nil)
    }
}
