import Cloudlet
import CloudletServer
import CloudletTesting
import Synchronization
import Testing

@Suite("Find triggers: beforeFind and afterFind")
struct FindTriggerTests {
    /// Five `Posts` with `n` 1…5; `n` 2 is `hidden`.
    static func seeded(_ hooks: HookRegistry) async throws -> HookHarness {
        let harness = try HookHarness(registry: hooks)
        for n in 1...5 { try await harness.create("Posts", ["n": .number(Double(n)), "hidden": .bool(n == 2), "title": .string("t\(n)")]) }
        return harness
    }

    @Test func beforeFindChangesTheWhereLimitKeysAndOrder() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { request in
            request.query.constraints["hidden"] = ["$ne": true]
            request.query.order = ["-n"]
            request.query.limit = min(request.query.limit, 3)
            request.query.keys = ["n"]
            request.query.className = "Elsewhere"
        }
        let harness = try await Self.seeded(hooks)
        try await harness.create("Elsewhere", ["n": 99])
        let found = try await harness.find(ParseQuery("Posts", order: ["n"], limit: 50), as: .anonymous)
        #expect(found.map { $0["n"]?.intValue } == [5, 4, 3])
        #expect(found.allSatisfy { $0["title"] == nil && $0.objectId != nil }, "keys kept only n")
        #expect(harness.counts(.beforeFind, "Posts").invocations == 1)
    }

    @Test func beforeFindRefusesAQueryWithTheHooksError() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { request in
            guard request.query.constraints["owner"] != nil else { throw HookError.validation("say whose posts") }
        }
        hooks.beforeFind("Secrets") { _ in throw SomeFailure() }
        let harness = try await Self.seeded(hooks)
        let refused = try await #require(throws: ParseError.self) { try await harness.find(ParseQuery("Posts")) }
        #expect(refused == HookError.validation("say whose posts"))
        let failed = try await #require(throws: ParseError.self) { try await harness.find(ParseQuery("Secrets")) }
        #expect(failed.code == 141)
        #expect(!failed.message.contains("secret detail"))
        #expect(try await harness.find(ParseQuery("Posts").whereKey("owner", equalTo: "u1")).isEmpty)
    }

    @Test func beforeFindIsToldWhetherTheQueryIsACountOrAGet() async throws {
        let seen = Mutex<[String]>([])
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { request in
            seen.withLock { $0.append("count \(request.isCount) get \(request.isGet) where \(request.query.constraints.keys.sorted())") }
            request.query.constraints["hidden"] = ["$ne": true]
        }
        let harness = try await Self.seeded(hooks)
        #expect(try await harness.count(ParseQuery("Posts")) == 4, "the count runs the hook's query")
        let id = try #require(try await harness.find(ParseQuery("Posts", limit: 1)).first?.objectId)
        _ = try await harness.get("Posts", id: id)
        #expect(seen.withLock { $0 } == ["count true get false where []", "count false get false where []", "count false get true where [\"objectId\"]"])
    }

    @Test func aGetFiresBothHooksAndTheHooksMayHideTheObject() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { request in request.query.constraints["hidden"] = ["$ne": true] }
        hooks.afterFind("Posts") { request in
            request.objects = request.objects.filter { $0["n"] != 3 }.map { var object = $0; object["seen"] = true; return object }
        }
        let harness = try await Self.seeded(hooks)
        let all = try await harness.find(ParseQuery("Posts", order: ["n"]))
        #expect(all.map { $0["n"]?.intValue } == [1, 4, 5])
        let stored = try await harness.runtime.context.stores.objects.find(StorageQuery(query: ParseQuery("Posts"), readerIdentities: nil))
        let hiddenId = try #require(stored.first { $0["n"] == 2 }?.objectId)
        #expect(try await harness.get("Posts", id: hiddenId) == nil, "beforeFind's constraint holds on a get")
        let droppedId = try #require(stored.first { $0["n"] == 3 }?.objectId)
        #expect(try await harness.get("Posts", id: droppedId) == nil, "afterFind's filter holds on a get")
        let firstId = try #require(all.first?.objectId)
        let shown = try #require(try await harness.get("Posts", id: firstId))
        #expect(shown["seen"] == true && shown["n"] == 1)
        #expect(harness.counts(.afterFind, "Posts").invocations == 3, "the find and the two gets that reached it")
    }

    @Test func afterFindSeesTheQueryAndOnlyWhatTheCallerMayRead() async throws {
        let seen = Mutex<[String]>([])
        var hooks = HookRegistry()
        hooks.afterFind("Notes") { request in
            seen.withLock { $0.append("\(request.query.limit) \(request.objects.compactMap { $0["t"]?.stringValue })") }
        }
        let harness = try HookHarness(registry: hooks)
        try await harness.create("Notes", ["t": "mine", "ACL": ParseACL.only(readers: ["u1"], writers: ["u1"]).json])
        try await harness.create("Notes", ["t": "theirs", "ACL": ParseACL.only(readers: ["u2"], writers: ["u2"]).json])
        _ = try await harness.find(ParseQuery("Notes", limit: 7), as: .user("u1"))
        #expect(seen.withLock { $0 } == ["7 [\"mine\"]"])
    }

    @Test func theQueryOfABeforeFindStillRunsAsTheCaller() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Notes") { request in request.query.constraints = [:] }
        let harness = try HookHarness(registry: hooks)
        try await harness.create("Notes", ["t": "theirs", "ACL": ParseACL.only(readers: ["u2"], writers: ["u2"]).json])
        #expect(try await harness.find(ParseQuery("Notes"), as: .user("u1")).isEmpty)
        #expect(try await harness.find(ParseQuery("Notes"), as: .user("u2")).count == 1)
    }

    @Test func typedAfterFindKeepsTheFieldsItsModelDoesNotName() async throws {
        struct Post: Codable, Sendable {
            var objectId: String?
            var title: String
        }
        var hooks = HookRegistry()
        hooks.afterFind("Posts", as: Post.self) { posts, _ in
            posts.filter { $0.title != "t1" }.map { var post = $0; post.title = post.title.uppercased(); return post }
        }
        let harness = try await Self.seeded(hooks)
        let found = try await harness.find(ParseQuery("Posts", order: ["n"]))
        #expect(found.map { $0["title"]?.stringValue } == ["T2", "T3", "T4", "T5"])
        #expect(found.map { $0["n"]?.intValue } == [2, 3, 4, 5])
    }

    @Test func findsThroughAHooksStoreFireTheFindHooksWithinTheDepthBound() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { request in request.query.constraints["hidden"] = ["$ne": true] }
        hooks.function("visible") { request in
            .number(Double(try await request.store.find(ParseQuery("Posts")).count))
        }
        hooks.beforeFind("Loop") { request in _ = try await request.store.find(ParseQuery("Loop")) }
        let harness = try await Self.seeded(hooks)
        #expect(try await harness.call("visible") == 4)
        let error = try await #require(throws: ParseError.self) { try await harness.find(ParseQuery("Loop")) }
        #expect(error.code == 141 && error.message.contains("nested"))
    }

    @Test func findHooksPastTheirLimitTimeOutWith124() async throws {
        var hooks = HookRegistry()
        hooks.beforeFind("Slow") { _ in await TimeLimitTests.hang() }
        hooks.afterFind("Posts", timeLimit: .seconds(1)) { _ in await TimeLimitTests.hang() }
        let harness = try await Self.seeded(hooks)
        let before = Task { try await harness.find(ParseQuery("Slow")) }
        try await harness.waitForInvocations(.beforeFind, "Slow")
        harness.clock.advance(by: .seconds(3))
        let beforeError = try await #require(throws: ParseError.self) { try await before.value }
        #expect(beforeError.code == 124)
        let after = Task { try await harness.find(ParseQuery("Posts")) }
        try await harness.waitForInvocations(.afterFind, "Posts")
        harness.clock.advance(by: .seconds(1))
        let afterError = try await #require(throws: ParseError.self) { try await after.value }
        #expect(afterError.code == 124)
        #expect(harness.counts(.beforeFind, "Slow").timeouts == 1 && harness.counts(.afterFind, "Posts").timeouts == 1)
    }
}

@Suite("Hook answers of the wrong shape")
struct HookAnswerShapeTests {
    /// A hook registered through the registry's one `register` (as a worker could answer) that
    /// answers what its kind does not return is refused with 141, and nothing is written or shown.
    @Test func anAnswerOfTheWrongShapeIsRefused() async throws {
        var hooks = HookRegistry()
        hooks.register(.beforeSave, "Posts") { _ in .array([]) }
        hooks.register(.beforeFind, "Posts") { _ in .string("not a query") }
        hooks.register(.afterFind, "Notes") { _ in .object([:]) }
        let harness = try HookHarness(registry: hooks)
        for attempt in [
            { _ = try await harness.create("Posts", ["title": "a"]) },
            { _ = try await harness.find(ParseQuery("Posts")) },
            { _ = try await harness.find(ParseQuery("Notes")) },
        ] as [@Sendable () async throws -> Void] {
            let error = try await #require(throws: ParseError.self) { try await attempt() }
            #expect(error.code == 141 && error.message.contains("must answer"), "\(error)")
        }
        let stored = try await harness.runtime.context.stores.objects.find(StorageQuery(query: ParseQuery("Posts"), readerIdentities: nil))
        #expect(stored.isEmpty, "the refused save wrote nothing")
        #expect(harness.counts(.beforeSave, "Posts").failures == 1)
    }
}

/// A failure whose details must stay in the log.
struct SomeFailure: Error, CustomStringConvertible {
    var description: String { "secret detail" }
}
