import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

/// A push job recorded in a before hook is stored in the save's transaction: there when the save
/// commits, gone when the hook throws or the write is refused.
@Suite("Pushes from before hooks")
struct BeforeHookPushTests {
    /// `Orders`' before hook records a push to the `ops` channel, then refuses orders marked `refuse`.
    static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.beforeSave("Orders") { request in
            try await request.push(PushNotification(toChannels: ["ops"], alert: "Order \(request.object["item"]?.stringValue ?? "")"))
            if request.object["refuse"]?.boolValue == true { throw HookError.validation("refused") }
        }
        return hooks
    }

    @Test(arguments: TestStore.allCases) func aSavedObjectsPushCommitsWithIt(store: TestStore) async throws {
        try await store.withRouter(registry: Self.hooks) { client in
            let id = try await Support.create(client, "Orders", ["item": "tea"])
            let jobs = try await Support.masterResults(client, "_PushStatus")
            #expect(jobs.count == 1)
            #expect(jobs.first?["source"] == "hook")
            #expect(jobs.first?["status"] == "pending")
            #expect(try JSONParser.parse(try #require(jobs.first?["payload"]?.stringValue)) == ["alert": "Order tea"])

            #expect(try await client.put("/classes/Orders/\(id)", ["item": "coffee"]).status == 200)
            let payloads = try await Support.masterResults(client, "_PushStatus", query: ["order": "createdAt"]).map {
                try JSONParser.parse($0["payload"]?.stringValue ?? "")["alert"]
            }
            #expect(payloads == ["Order tea", "Order coffee"], "an update's push commits with the update")
        }
    }

    @Test(arguments: TestStore.allCases) func aPushVanishesWhenTheHookThrows(store: TestStore) async throws {
        try await store.withRouter(registry: Self.hooks) { client in
            Support.expectError(try await client.post("/classes/Orders", ["item": "tea", "refuse": true]), status: 400, code: 142)
            #expect(try await Support.masterCount(client, "_PushStatus") == 0)
            #expect(try await Support.masterCount(client, "Orders") == 0)
        }
    }

    @Test(arguments: TestStore.allCases) func aPushVanishesWhenTheWriteIsRefusedAfterTheHook(store: TestStore) async throws {
        try await store.withRouter(registry: Self.hooks) { client in
            let id = try await Support.create(client, "Orders", ["item": "tea", "quantity": 1])
            // `quantity` is a number: a string is refused by the write itself (111), after the hook ran.
            Support.expectError(try await client.post("/classes/Orders", ["item": "cake", "quantity": "two"]), status: 400, code: 111)
            Support.expectError(try await client.put("/classes/Orders/\(id)", ["item": "bun", "quantity": "two"]), status: 400, code: 111)
            let jobs = try await Support.masterResults(client, "_PushStatus")
            #expect(jobs.count == 1, "only the first order's push: \(jobs)")
        }
    }
}
