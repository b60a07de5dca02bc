import Cloudlet
import CloudletTesting
import Testing

/// The harness opens LiveQuery subscriptions as a client would and shows what each receives: the
/// events of the writes its hooks and calls commit, checked against the subscriber's access.
@Suite("Harness: LiveQuery subscriptions")
struct HarnessLiveQueryTests {
    @Test func aSubscriptionSeesTheWritesItMayReadAsEvents() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Message") { request in
            request.object["text"] = .string((request.object["text"]?.stringValue ?? "").uppercased())
        }
        let harness = try HookHarness(registry: hooks)
        harness.liveQueryClasses = ["Message"]
        let ada = try await harness.signUp(username: "ada", password: "pw")
        let adaId = try #require(ada.objectId)
        let session = try await harness.logIn(username: "ada", password: "pw").sessionToken

        let mine = try await harness.subscribe("Message", where: ["room": "blue"], sessionToken: session)
        let everyone = try await harness.subscribe("Message", where: ["room": "blue"])

        let created = try await harness.create("Message", ["room": "blue", "text": "hi"])
        let id = try #require(created.objectId)
        for subscriber in [mine, everyone] {
            let event = await subscriber.next()
            #expect(event?["op"] == "create")
            #expect(event?["object"]?["objectId"] == .string(id))
            #expect(event?["object"]?["text"] == "HI", "the object as the beforeSave hook made it")
        }

        // Only Ada may read it now: the public subscriber sees it leave, Ada's sees the update.
        try await harness.update("Message", id: id, ["ACL": [adaId: ["read": true]]])
        #expect(await mine.next()?["op"] == "update")
        #expect(await everyone.next()?["op"] == "leave")

        try await harness.create("Message", ["room": "red", "text": "elsewhere"])
        try await harness.delete("Message", id: id)
        #expect(await mine.next()?["op"] == "delete", "the red room's message is no event of this query")
        #expect(await everyone.next(within: .milliseconds(300)) == nil)
    }

    @Test func aRefusedSubscriptionThrowsTheClientsError() async throws {
        let harness = try HookHarness(registry: HookRegistry())
        await #expect(throws: ParseError.self) { try await harness.subscribe("Message") }
        harness.liveQueryClasses = ["Message"]
        do {
            _ = try await harness.subscribe("Message", where: ["text": ["$text": ["$search": ["$term": "x"]]]])
            Issue.record("a query the matcher cannot decide on one object is refused")
        } catch let error as ParseError {
            #expect(error.code == 102)
        }
        do {
            _ = try await harness.subscribe("Message", sessionToken: "r:not-a-session")
            Issue.record("an unknown session is refused")
        } catch let error as ParseError {
            #expect(error.code == 209)
        }
    }

    @Test func theLiveQueryHooksActOnTheHarnesssSubscriptions() async throws {
        struct Message: Codable, Sendable {
            var text: String
            var room: String
        }
        var hooks = HookRegistry()
        hooks.beforeSubscribe("Message") { request in
            if request.query.constraints["room"] == "secret" { throw HookError.validation("no secret rooms") }
            request.query.constraints["hidden"] = ["$ne": true]
        }
        hooks.afterLiveQueryEvent("Message", as: Message.self) { message, event, _ in
            message.text = "\(event.rawValue): \(message.text)"
            return message.text.contains("drop") == false
        }
        let harness = try HookHarness(registry: hooks)
        harness.liveQueryClasses = ["Message"]
        do {
            _ = try await harness.subscribe("Message", where: ["room": "secret"])
            Issue.record("beforeSubscribe refuses a secret room")
        } catch let error as ParseError {
            #expect(error.code == 142)
        }
        let blue = try await harness.subscribe("Message", where: ["room": "blue"])
        try await harness.create("Message", ["room": "blue", "text": "hidden", "hidden": true])
        try await harness.create("Message", ["room": "blue", "text": "drop me"])
        try await harness.create("Message", ["room": "blue", "text": "hello"])
        let event = await blue.next()
        #expect(event?["object"]?["text"] == "create: hello", "the hidden object no longer matched; the dropped one was not sent")
        #expect(harness.counts(.afterLiveQueryEvent, "Message").invocations == 2)
    }
}

