import Cloudlet
import CloudletTesting
import Testing

@Suite("The hook harness: relations through a hook's store")
struct HarnessRelationTests {
    /// `tag` adds (or with `remove`, removes) the tag `tag` to the post `post`'s `tags` relation;
    /// `tags` answers the names of the post's tags the caller may read.
    private static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("tag") { request in
            var post = ParseObject(className: "Posts")
            post.objectId = request.params["post"]?.stringValue
            let tags: [ParseValue] = [.pointer(className: "Tags", objectId: request.params["tag"]?.stringValue ?? "")]
            post["tags"] = request.params["remove"] == true ? .removeRelation(tags) : .addRelation(tags)
            return try await request.store.save(post)["tags"] ?? .null
        }
        hooks.function("tags") { request in
            let post = ParseValue.pointer(className: "Posts", objectId: request.params["post"]?.stringValue ?? "")
            let tags = try await request.store.find(ParseQuery("Tags").whereRelatedTo(object: post, key: "tags"))
            return .array(tags.compactMap { $0["name"] }.sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") })
        }
        return hooks
    }

    @Test func aHookAddsRemovesAndQueriesRelationsAsTheCaller() async throws {
        try await Self.check(try HookHarness(registry: Self.hooks))
    }

    @Test func relationsCrossTheWorkerWireIntact() async throws {
        try await HookHarness.withInMemoryWorkers(registry: Self.hooks) { harness in try await Self.check(harness) }
    }

    private static func check(_ harness: HookHarness) async throws {
        let post = try #require(try await harness.create("Posts", ["title": "hello"]).objectId)
        let swift = try #require(try await harness.create("Tags", ["name": "swift"]).objectId)
        let hidden = try #require(
            try await harness.create("Tags", ["name": "hidden", "ACL": ParseACL.only(readers: ["u1"], writers: ["u1"]).json]).objectId)
        let stored = try await harness.call("tag", ["post": .string(post), "tag": .string(swift)], as: .master)
        #expect(stored == .relation(className: "Tags"))
        _ = try await harness.call("tag", ["post": .string(post), "tag": .string(hidden)], as: .master)

        #expect(try await harness.call("tags", ["post": .string(post)], as: .user("u1")) == ["hidden", "swift"])
        #expect(try await harness.call("tags", ["post": .string(post)], as: .user("u2")) == ["swift"])
        _ = try await harness.call("tag", ["post": .string(post), "tag": .string(swift), "remove": true], as: .master)
        #expect(try await harness.call("tags", ["post": .string(post)], as: .master) == ["hidden"])
    }
}
