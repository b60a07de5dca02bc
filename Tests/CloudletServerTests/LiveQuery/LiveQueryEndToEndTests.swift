import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

/// LiveQuery from a client's REST writes to another client's WebSocket, through the store's own
/// feed of committed writes: on SQLite, and on PostgreSQL where the feed is the database's
/// notifications.
@Suite("LiveQuery end to end")
struct LiveQueryEndToEndTests {
    typealias Fixture = LiveQueryFixture

    @Test("REST creates, updates and deletes reach a subscriber as events, only those it may read", arguments: TestStore.allCases)
    func restWrites(_ store: TestStore) async throws {
        try await Fixture.with(store) { fixture in
            let ada = try await fixture.signUp("ada")
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect(sessionToken: ada.token)
                #expect(await socket.subscribe(1, "Message", where: ["room": "blue"])?["op"] == "subscribed")
                let hidden = try await fixture.client.post("/classes/Message", ["room": "blue", "ACL": [:]], master: true)
                #expect(hidden.status == 201)
                let created = try await fixture.client.post("/classes/Message", ["room": "blue", "text": "hi"], sessionToken: ada.token)
                let id = try #require(created["objectId"]?.stringValue)
                let create = try #require(await socket.next(within: .seconds(30)))
                #expect(create["op"] == "create" && create["object"]?["objectId"] == .string(id) && create["object"]?["text"] == "hi", "\(create)")
                #expect(try await fixture.client.put("/classes/Message/\(id)", ["text": "hello"], sessionToken: ada.token).status == 200)
                let update = try #require(await socket.next(within: .seconds(30)))
                #expect(update["op"] == "update" && update["object"]?["text"] == "hello" && update["original"]?["text"] == "hi", "\(update)")
                #expect(try await fixture.client.put("/classes/Message/\(id)", ["room": "red"], sessionToken: ada.token).status == 200)
                #expect(await socket.next(within: .seconds(30))?["op"] == "leave")
                #expect(try await fixture.client.delete("/classes/Message/\(id)", sessionToken: ada.token).status == 200)
                #expect(try await fixture.client.post("/classes/Message", ["room": "blue", "text": "last"]).status == 201)
                let last = try #require(await socket.next(within: .seconds(30)))
                #expect(last["op"] == "create" && last["object"]?["text"] == "last", "a delete outside the query is no event: \(last)")
                // Counted once the event is queued, which may be after the client has read it.
                try await Support.eventually { fixture.metric("cloudlet_livequery_events_total", #"app="a",event="create""#) == 2 }
            }
        }
    }

    @Test("a gap in the feed (writes may have been missed) disconnects the app's clients, which connect again")
    func gap() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                _ = await socket.subscribe(1, "Message")
                fixture.feed.publishGap()
                #expect(await socket.closed())
            }
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                #expect(await socket.connect()?["op"] == "connected")
            }
        }
    }
}
