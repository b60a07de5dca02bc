import Cloudlet
import CloudletTesting
import Hooks
import Testing

@Test func postsAreValidatedAndCounted() async throws {
    let harness = try HookHarness(AppHooks.self)
    let post = try await harness.create("Posts", ["title": "  Launch  ", "author": "ada"])
    #expect(post["title"] == "Launch")
    await #expect(throws: ParseError.self) { try await harness.create("Posts", ["title": ""]) }
    #expect(harness.counts(.afterSave, "Posts").invocations == 1)
    #expect(harness.logs.messages(from: .afterSave, "Posts") == ["counted post"])

    // Act as a user, and see ACLs applied: u1 finds the public post, not the one only u2 may read.
    _ = try await harness.create("Posts", ["title": "Draft", "ACL": ParseACL.only(readers: ["u2"], writers: ["u2"]).json])
    let seen = try await harness.find(ParseQuery("Posts"), as: .user("u1"))
    #expect(seen.map { $0["title"] } == ["Launch"])
}

@Test func aHangingHookTimesOutWithoutWaiting() async throws {
    var hooks = HookRegistry()
    hooks.function("slow") { _ in try await Task.sleep(for: .seconds(60)); return nil }
    let harness = try HookHarness(registry: hooks)
    let call = Task { try await harness.call("slow") }
    try await harness.waitForInvocations(.function, "slow")
    harness.clock.advance(by: .seconds(15))          // past the function's 15 s limit
    let error = try await #require(throws: ParseError.self) { try await call.value }
    #expect(error.code == 124)
}
