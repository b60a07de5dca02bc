import Cloudlet
import CloudletServerTesting
import Foundation
import Testing

extension ProcessTests {
    /// LiveQuery's hooks run where the app's other hooks do, in its worker processes, as `serve`
    /// runs them: a `beforeSubscribe` refuses or narrows a subscription, an `afterLiveQueryEvent`
    /// drops an event or changes what its subscriber receives (`FixtureHooks.registerLiveQuery`).
    @Suite struct LiveQueryHookProcessTests {
        @Test(.timeLimit(.minutes(2)))
        func theLiveQueryHooksRunInTheAppsWorkerProcesses() async throws {
            let folder = try ServerProcess.temporaryFolder("live-hooks")
            defer { try? FileManager.default.removeItem(at: folder) }
            let made = try await ServerProcess.run(.fixture, ["apps", "create", "dev", "--live-query-classes", "Broadcast", "--data", folder.path])
            #expect(made.ending == .exit(0), "\(made.stderr)")
            let server = try await ServerProcess.serve(.fixture, data: folder)
            defer { server.killIfRunning() }
            let client = server.client()

            try await LiveQuerySocket.with(port: server.port) { socket in
                let keys: [String: ParseValue] = ["clientKey": .string(server.banner.clientKey)]
                #expect(await socket.connect(server.banner.appId, keys: keys)?["op"] == "connected")
                let refused = await socket.subscribe(1, "Broadcast", where: ["secret": "x"])
                #expect(refused?["op"] == "error")
                #expect(refused?["code"] == 142)
                #expect(refused?["error"] == "no subscribing to secrets")
                #expect(await socket.subscribe(2, "Broadcast", where: ["room": "blue"])?["op"] == "subscribed")

                #expect(try await client.post("/classes/Broadcast", ["room": "blue", "text": "hush", "muted": true]).status == 201)
                #expect(try await client.post("/classes/Broadcast", ["room": "blue", "text": "hello", "other": "left out"]).status == 201)
                let event = await socket.next(within: .seconds(30))
                #expect(event?["op"] == "create")
                #expect(event?["object"]?["text"] == "hello", "the muted object's event was dropped")
                #expect(event?["object"]?["other"] == nil, "beforeSubscribe kept only text and stamp")
                let stamp = try #require(event?["object"]?["stamp"]?.intValue)
                #expect(stamp != Int(server.pid), "the hook ran in a worker process, not in the server")
            }
        }
    }
}
