import Cloudlet
import CloudletServerTesting
import Foundation
import PostgresTestServer
import Testing

extension ProcessTests {
    /// Two `cloudlet serve` nodes on one PostgreSQL database: a LiveQuery client connected to one
    /// node receives the events of writes made through the other, in commit order, and none for
    /// objects its query does not match.
    @Suite struct LiveQueryAcrossNodesTests {
        @Test(.timeLimit(.minutes(2)))
        func aSubscriberOnOneNodeReceivesTheWritesMadeThroughTheOther() async throws {
            let database = try await PostgresTestServer.shared.newDatabase()
            let (arguments, environment) = MultiNodeTests.nodeSettings(database)
            let folders = try [ServerProcess.temporaryFolder("live-a"), ServerProcess.temporaryFolder("live-b")]
            defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
            // The app `dev` (serve's default) publishes `Note`, as its registry entry in the database says.
            let made = try await ServerProcess.run(
                .fixture, ["apps", "create", "dev", "--live-query-classes", "Note", "--data", folders[0].path], environment: environment)
            #expect(made.ending == .exit(0), "\(made.stderr)")
            async let startingA = ServerProcess.serve(.fixture, data: folders[0], arguments: arguments, environment: environment)
            async let startingB = ServerProcess.serve(.fixture, data: folders[1], arguments: arguments, environment: environment)
            let (nodeA, nodeB) = try await (startingA, startingB)
            defer {
                nodeA.killIfRunning()
                nodeB.killIfRunning()
            }
            let writer = nodeA.client(masterKey: "multi-node-master")

            try await LiveQuerySocket.with(port: nodeB.port) { socket in
                let connected = await socket.connect(nodeB.banner.appId, keys: ["clientKey": "multi-node-client"])
                #expect(connected?["op"] == "connected")
                let subscribed = await socket.subscribe(1, "Note", where: ["room": "blue"])
                #expect(subscribed?["op"] == "subscribed")

                // A note of another room first: it must not reach the subscriber.
                #expect(try await writer.post("/classes/Note", ["room": "red", "text": "not for blue"]).status == 201)
                let saved = try await writer.post("/classes/Note", ["room": "blue", "text": "hello from a"])
                #expect(saved.status == 201)
                let id = try #require(saved["objectId"]?.stringValue)
                let created = await socket.next(within: .seconds(20))
                #expect(created?["op"] == "create")
                #expect(created?["requestId"] == 1)
                #expect(created?["object"]?["objectId"] == .string(id))
                #expect(created?["object"]?["text"] == "hello from a")

                #expect(try await writer.put("/classes/Note/\(id)", ["text": "changed on a"]).status == 200)
                let updated = await socket.next(within: .seconds(20))
                #expect(updated?["op"] == "update")
                #expect(updated?["object"]?["text"] == "changed on a")
                #expect(updated?["original"]?["text"] == "hello from a")

                #expect(try await writer.put("/classes/Note/\(id)", ["room": "red"]).status == 200)
                #expect(await socket.next(within: .seconds(20))?["op"] == "leave")

                let other = try #require(try await writer.post("/classes/Note", ["room": "blue"])["objectId"]?.stringValue)
                #expect(await socket.next(within: .seconds(20))?["op"] == "create")
                #expect(try await writer.delete("/classes/Note/\(other)").status == 200)
                let deleted = await socket.next(within: .seconds(20))
                #expect(deleted?["op"] == "delete")
                #expect(deleted?["object"]?["objectId"] == .string(other))
            }
        }
    }
}
