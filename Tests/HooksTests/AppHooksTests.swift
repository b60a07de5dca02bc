import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Hooks
import Testing

@Suite("The default app's hooks")
struct AppHooksTests {
    @Test func postsAreTrimmedTaggedAndCounted() async throws {
        let harness = try HookHarness(AppHooks.self)
        let post = try await harness.create("Posts", ["title": "  Launch day \n", "tags": ["Swift", " swift", "Server"], "body": "We ship today", "author": "ada"])
        #expect(post["title"] == "Launch day")
        #expect(post["tags"] == ["swift", "server"])
        #expect(post["wordCount"] == 3)
        try await harness.create("Posts", ["title": "Second", "author": "ada"])
        let stats = try await harness.find(ParseQuery("AuthorStats").whereKey("author", equalTo: "ada"))
        #expect(stats.count == 1)
        #expect(stats.first?["posts"] == 2)
        #expect(harness.counts(.afterSave, "Posts").invocations == 2)
    }

    @Test(arguments: [
        (["title": "   "], "title must not be empty"),
        (["title": .string(String(repeating: "x", count: 141))], "title must be at most 140 characters"),
        (["title": "ok", "tags": "swift"], "tags must be a list of strings"),
    ] as [([String: ParseValue], String)])
    func invalidPostsAreRefused(_ fields: [String: ParseValue], _ message: String) async throws {
        let harness = try HookHarness(AppHooks.self)
        let error = try await #require(throws: ParseError.self) { try await harness.create("Posts", fields) }
        #expect(error == HookError.validation(message))
        #expect(try await harness.find(ParseQuery("Posts")).isEmpty)
    }

    @Test func updatesDoNotCountAgain() async throws {
        let harness = try HookHarness(AppHooks.self)
        let post = try await harness.create("Posts", ["title": "One", "author": "bo"])
        try await harness.update("Posts", id: try #require(post.objectId), ["title": "One, edited"])
        let stats = try await harness.find(ParseQuery("AuthorStats"))
        #expect(stats.first?["posts"] == 1)
    }

    @Test func helloGreetsByName() async throws {
        let harness = try HookHarness(AppHooks.self)
        #expect(try await harness.call("hello", ["name": "Ada"]) == "Hello, Ada!")
        #expect(try await harness.call("hello") == "Hello, world!")
    }

    @Test func theHooksServeOverTheRouter() async throws {
        try await ParseTestClient.withRouter(AppHooks.self) { client in
            let created = try await client.post("/classes/Posts", ["title": " Hi "])
            #expect(created.status == 201)
            #expect(created["title"] == "Hi")
            let refused = try await client.post("/classes/Posts", ["title": ""])
            #expect(refused.status == 400)
            #expect(refused["code"] == 142)
            let hello = try await client.post("/functions/hello", ["name": "Grace"])
            #expect(hello["result"] == "Hello, Grace!")
        }
    }
}
