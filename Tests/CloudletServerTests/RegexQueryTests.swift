import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

@Suite("$regex in queries: bounded work, and never on rows the reader cannot see")
struct RegexQueryTests {
    @Test("^(a+)+$ over a thousand rows of aaaa…! answers at once, and another query is not held up", arguments: TestStore.allCases)
    func catastrophicPatternOnManyRows(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let evil = String(repeating: "a", count: 40) + "!"
            try await Support.batchCreate(client, "Texts", count: 1000) { _ in ["s": .string(evil)] }
            try await Support.create(client, "Texts", ["s": "aaaa"])
            let started = ContinuousClock.now
            async let slow = client.get("/classes/Texts", query: ["where": ["s": ["$regex": "^(a+)+$"]], "limit": 1000])
            async let other = client.get("/classes/Texts", query: ["limit": 1])
            let otherReply = try await other
            let otherTime = ContinuousClock.now - started
            let reply = try await slow
            let time = ContinuousClock.now - started
            #expect(reply.status == 200, "\(reply.body)")
            #expect(Support.values(reply, "s") == ["aaaa"])
            #expect(otherReply.status == 200)
            #expect(time < .seconds(5), "the pathological query took \(time)")
            #expect(otherTime < .seconds(5), "the other query waited \(otherTime)")
        }
    }

    @Test("patterns without a linear-time match (backreferences, lookaround) answer 102", arguments: TestStore.allCases)
    func unsupportedPatterns(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Texts", ["s": "abab"])
            for pattern in ["(ab)\\1", "a(?=b)", "(?<!x)a"] {
                let reply = try await client.get("/classes/Texts", query: ["where": ["s": ["$regex": .string(pattern)]]])
                Support.expectError(reply, status: 400, code: 102)
            }
            let fine = try await client.get("/classes/Texts", query: ["where": ["s": ["$regex": "^(ab)+$"]]])
            #expect(Support.values(fine, "s") == ["abab"])
        }
    }

    /// A store whose queries may take only 100,000 regex steps, with 200 long private texts and 3 short public ones.
    private static func storeWithPrivateTexts(_ folder: URL) async throws -> SQLiteObjectStore {
        let storage = SQLiteObjectStore(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path, regexStepsPerQuery: 100_000))
        let now = Date()
        let long = String(repeating: "a", count: 2000)
        for index in 0..<203 {
            let isPublic = index < 3
            let object = ParseObject(
                className: "Texts", objectId: String(format: "id%07d", index), createdAt: now, updatedAt: now,
                acl: isPublic ? nil : .only(readers: ["owner"], writers: ["owner"]),
                fields: ["s": .string(isPublic ? "ab\(index)" : long)])
            try await storage.insert(object, outbox: nil)
        }
        return storage
    }

    @Test("a pattern runs only on rows the reader may read: rows hidden by ACL cost it nothing")
    func aclFilterRunsFirst() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-regex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try await Self.storeWithPrivateTexts(folder)
        let query = ParseQuery("Texts", constraints: ["s": ["$regex": "a*b"]], limit: 1000)

        // Each hidden row would take ~8,000 steps, 1.6 million for all: far past the budget.
        let visible = try await storage.find(StorageQuery(query: query, readerIdentities: ["*"]))
        #expect(visible.compactMap { $0["s"]?.stringValue }.sorted() == ["ab0", "ab1", "ab2"])
        #expect(try await storage.count(StorageQuery(query: query, readerIdentities: ["*"])) == 3)

        // The master key sees every row, so the same pattern runs past the budget: 102.
        let error = await #expect(throws: ParseError.self) {
            try await storage.find(StorageQuery(query: query, readerIdentities: nil))
        }
        #expect(error?.code == 102)
    }
}
