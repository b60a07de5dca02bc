import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// `POST /push`: Parse's body shape, a `rest` job in `_PushStatus`, and each refusal with its code.
@Suite("POST /push")
struct PushRouteTests {
    static let statusIdHeader = HTTPField.Name("X-Parse-Push-Status-Id")!

    @Test(arguments: TestStore.allCases) func aPushToChannelsIsRecordedAsAPendingRestJob(store: TestStore) async throws {
        try await InstallationTests.withClient(store) { client in
            let reply = try await client.post(
                "/push", ["channels": ["news", "sport"], "data": ["alert": "Goal!", "badge": "Increment"], "expiration_interval": 600],
                master: true)
            #expect(reply.status == 200)
            #expect(reply.body == ["result": true])
            let id = try #require(reply.headers[Self.statusIdHeader])
            let job = try #require(try await Support.masterResults(client, "_PushStatus").first)
            #expect(job["objectId"] == .string(id))
            #expect(job["status"] == "pending")
            #expect(job["source"] == "rest")
            #expect(try JSONParser.parse(try #require(job["query"]?.stringValue)) == ["channels": ["$in": ["news", "sport"]]])
            #expect(try JSONParser.parse(try #require(job["payload"]?.stringValue)) == ["alert": "Goal!", "badge": "Increment"])
            let created = try #require(job["createdAt"]?.stringValue.flatMap(ParseDate.date(from:)))
            let expiry = try #require(job["expiry"]?.doubleValue)
            #expect(abs(expiry / 1000 - created.timeIntervalSince1970 - 600) < 5, "expiration_interval counts from now")
        }
    }

    @Test(arguments: TestStore.allCases) func aPushWithAWhereAndAFuturePushTimeIsScheduled(store: TestStore) async throws {
        try await InstallationTests.withClient(store) { client in
            let reply = try await client.post(
                "/push",
                [
                    "where": ["deviceType": ["$in": ["ios", "android"]], "appVersion": ["$gte": "2.0"]], "data": ["alert": "Hi"],
                    "push_time": "2099-01-01T09:00:00Z", "expiration_time": "2099-01-02T09:00:00.000Z",
                ], master: true)
            #expect(reply.status == 200, "\(reply.body)")
            let job = try #require(try await Support.masterResults(client, "_PushStatus").first)
            #expect(job["status"] == "scheduled")
            #expect(job["pushTime"] == "2099-01-01T09:00:00.000Z")
            #expect(job["expiry"]?.doubleValue == 4_071_027_600_000)
            #expect(try JSONParser.parse(try #require(job["query"]?.stringValue)) == ["deviceType": ["$in": ["ios", "android"]], "appVersion": ["$gte": "2.0"]])
        }
    }

    @Test(arguments: TestStore.allCases) func eachBadPushIsRefusedWithParsesCodeAndNothingIsRecorded(store: TestStore) async throws {
        try await InstallationTests.withClient(store) { client in
            Support.expectError(try await client.post("/push", ["channels": ["a"], "data": ["alert": "x"]]), status: 403, code: 119)
            let refusals: [([String: ParseValue], Int)] = [
                (["data": ["alert": "x"]], 115),
                (["channels": ["a"], "where": [:], "data": ["alert": "x"]], 115),
                (["channels": ["a"]], 115),
                (["channels": "a", "data": ["alert": "x"]], 111),
                (["where": "deviceType", "data": ["alert": "x"]], 111),
                (["channels": ["a"], "data": "x"], 111),
                (["channels": ["a"], "data": ["badge": "twice"]], 111),
                (["channels": ["a"], "data": ["alert": "x"], "push_time": "soon"], 115),
                (["channels": ["a"], "data": ["alert": "x"], "expiration_time": "2099-01-01T00:00:00Z", "expiration_interval": 60], 115),
                (["channels": ["a"], "data": ["alert": "x"], "expiration_interval": -1], 115),
                (["where": ["deviceType": ["$bogus": 1]], "data": ["alert": "x"]], 102),
            ]
            for (body, code) in refusals {
                Support.expectError(try await client.post("/push", body, master: true), status: 400, code: code)
            }
            let invalidJSON = try await Support.send(client, .post, "/push", text: "{\"channels\":", headers: Support.clientHeaders(master: true))
            Support.expectError(invalidJSON, status: 400, code: 107)
            #expect(try await Support.masterCount(client, "_PushStatus") == 0)
        }
    }
}
