import Cloudlet
import CloudletServerTesting
import CloudletTesting
import ContentAlertsHooks
import Foundation
import Testing

@Suite("ContentAlerts: contents")
struct ContentsTests {
    /// Publishes a content as master, with a timestamp `day` days into 2026.
    private func publish(_ client: ParseTestClient, _ title: String, _ type: String, tags: [ParseValue], day: Int) async throws -> String {
        let timestamp = Date(timeIntervalSince1970: 1_767_225_600 + Double(day) * 86_400)
        let reply = try await client.post(
            "/classes/Contents", ["title": .string(title), "type": .string(type), "tags": .array(tags), "timestamp": .date(timestamp)],
            master: true)
        #expect(reply.status == 201, "publishing \(title) failed: \(reply.body)")
        return try #require(reply["objectId"]?.stringValue)
    }

    private func titles(_ client: ParseTestClient, _ query: [String: ParseValue]) async throws -> [String] {
        let reply = try await client.get("/classes/Contents", query: query)
        #expect(reply.status == 200, "query failed: \(reply.body)")
        return try #require(reply["results"]?.arrayValue).compactMap { $0["title"]?.stringValue }
    }

    @Test func contentsAreListedNewestFirstAndFilteredByTypeOrTag() async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            _ = try await publish(client, "Hello, Swift", "blog", tags: ["Swift", " server "], day: 1)
            _ = try await publish(client, "Hooks at scale", "white paper", tags: ["swift", "scale"], day: 3)
            _ = try await publish(client, "Team news", "blog", tags: ["news"], day: 2)

            #expect(try await titles(client, ["order": "-timestamp"]) == ["Hooks at scale", "Team news", "Hello, Swift"])
            #expect(try await titles(client, ["where": ["type": "blog"], "order": "-timestamp"]) == ["Team news", "Hello, Swift"])
            #expect(try await titles(client, ["where": ["tags": "swift"], "order": "-timestamp"]) == ["Hooks at scale", "Hello, Swift"])
            #expect(
                try await titles(client, ["where": ["type": "white paper", "tags": "scale"], "order": "-timestamp"]) == ["Hooks at scale"])
            let first = try #require(try await client.get("/classes/Contents", query: ["where": ["title": "Hello, Swift"]])["results"]?.arrayValue?.first)
            #expect(first["tags"] == ["swift", "server"])
        }
    }

    @Test func aNewContentIsAnnouncedOnTheNotificationsChannel() async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            let id = try await publish(client, "Hooks at scale", "white paper", tags: [], day: 3)
            let jobs = try #require(try await client.get("/classes/_PushStatus", master: true)["results"]?.arrayValue)
            #expect(jobs.count == 1)
            let job = try #require(jobs.first)
            #expect(try JSONParser.parse(try #require(job["query"]?.stringValue)) == ["channels": ["$in": ["notifications"]]])
            let payload = try JSONParser.parse(try #require(job["payload"]?.stringValue))
            #expect(payload["type"] == "white paper")
            #expect(payload["timestamp"] == "2026-01-04T00:00:00.000Z")
            #expect(payload["contentId"] == .string(id))
            #expect(payload["alert"] == "New white paper: Hooks at scale")

            let edit = try await client.put("/classes/Contents/\(id)", ["title": "Hooks at scale, 2nd edition"], master: true)
            #expect(edit.status == 200)
            let count = try await client.get("/classes/_PushStatus", query: ["count": 1, "limit": 0], master: true)
            #expect(count["count"] == 1, "an edit is not announced again")
        }
    }

    @Test func aSubscriberOfTheNotificationsChannelIsSentTheAnnouncement() async throws {
        let logs = CapturedLogs()
        try await ParseTestClient.withRouter(ContentAlertsHooks.self, deliveringPushesLoggingTo: logs) { client in
            let subscriber = "c0ffee0000000000000000000000000000000000000000000000000000000001"
            let subscribed = try await client.post(
                "/installations",
                ["installationId": "reader-iphone", "deviceType": "ios", "deviceToken": .string(subscriber), "channels": ["notifications"]])
            #expect(subscribed.status == 201)
            let other = "0be1000000000000000000000000000000000000000000000000000000000001"
            _ = try await client.post(
                "/installations", ["installationId": "other-iphone", "deviceType": "ios", "deviceToken": .string(other), "channels": ["sport"]])

            _ = try await publish(client, "Hooks at scale", "white paper", tags: [], day: 3)
            let job = try #require(try await client.endedPushJobs().first)
            #expect(job["status"] == "succeeded")
            #expect(job["numSent"] == 1, "only the channel's subscriber")
            #expect(job["numFailed"] == 0)

            let delivered = logs.all.filter { $0.message == "push notification (log provider)" }
            #expect(delivered.count == 1)
            #expect(delivered.first?.metadata["token"] == "\(subscriber.prefix(8))…")
            let payload = try JSONParser.parse(Array(try #require(delivered.first?.metadata["payload"]).utf8))
            #expect(payload["alert"] == "New white paper: Hooks at scale")
        }
    }

    @Test func editorsPublishWithTheirTokenAndOthersAreRefused() async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            try await Newsroom.seed(client)
            let editor = try await Newsroom.token(client, "ada", role: "editor")
            let published = try await client.post(
                "/classes/Contents", ["title": "By Ada", "type": "blog", "authToken": .string(editor)])
            #expect(published.status == 201)
            let stored = try await client.get("/classes/Contents/\(try #require(published["objectId"]?.stringValue))")
            #expect(stored["author"] == "ada")
            #expect(stored["authToken"] == nil)
            #expect(stored["timestamp"]?.dateValue != nil, "the timestamp defaults to the time of publishing")

            let reader = try await Newsroom.token(client, "bob", role: "reader")
            for token: ParseValue? in [.string(reader), "not-a-token", nil] {
                var body: [String: ParseValue] = ["title": "Sneaky", "type": "blog"]
                body["authToken"] = token
                #expect(try await client.post("/classes/Contents", body)["code"] == 119)
            }
        }
    }

    @Test(arguments: [
        (["title": "x", "type": "podcast"] as [String: ParseValue], "type must be one of: blog, white paper"),
        (["title": " ", "type": "blog"], "title must not be empty"),
        (["title": "x", "type": "blog", "tags": "swift"], "tags must be a list of strings"),
        (["title": "x", "type": "blog", "timestamp": "yesterday"], "timestamp must be a Date"),
    ])
    func invalidContentsAreRefused(_ body: [String: ParseValue], _ message: String) async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            let reply = try await client.post("/classes/Contents", body, master: true)
            #expect(reply.body == ["code": 142, "error": .string(message)])
        }
    }
}
