import Cloudlet
import CloudletServerTesting
import Foundation
import Testing

extension ProcessTests {
    /// A real server whose hooks run in worker processes: the config a client writes reaches the
    /// hooks over the worker's connection, and `/hooks` lists what the workers announced.
    @Suite struct ConfigProcessTests {
        @Test func workersReadTheConfigAndTheHostListsTheirHooks() async throws {
            let data = try ServerProcess.temporaryFolder("config-workers")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data, arguments: ["--workers", "1"])
            defer { server.killIfRunning() }
            let client = server.client()
            let put = try await client.put("/config", ["params": ["welcome": "hi", "apiSecret": "s3cr3t"], "masterKeyOnly": ["apiSecret": true]], master: true)
            #expect(put.body == ["result": true], "\(put.body)")

            let reply = try await client.post("/functions/config", [:])
            #expect(reply["result"] == ["caller": ["welcome": "hi"], "master": ["welcome": "hi", "apiSecret": "s3cr3t"]], "\(reply.body)")
            let functions = try await client.get("/hooks/functions", master: true)
            #expect(functions.body.arrayValue?.contains(["functionName": "config"]) == true, "\(functions.body)")
            let triggers = try await client.get("/hooks/triggers", master: true)
            #expect(triggers.body.arrayValue?.contains(["className": "Crash", "triggerName": "afterSave"]) == true, "\(triggers.body)")
            #expect(try await server.stop() == .exit(0))
        }
    }
}
