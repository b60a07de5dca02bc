import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

/// Push delivery as the server runs it: a job recorded through the REST API is worked
/// through by the default (log) provider and its status read back with the master key.
@Suite struct PushDeliveryServerTests {
    @Test func theServerSendsAJobRecordedThroughTheAPIAndShowsItsStatusToTheMasterKeyOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let server = try await CloudletApplication(
            configuration: ServerConfiguration(port: 0, dataDirectory: folder.path, passwordHashCost: 4),
            apps: [
                AppDefinition(
                    id: "test", executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "client-key", masterKey: "master-key")
            ],
            logger: logger)
        try await server.application().test(.live) { http in
            let client = ParseTestClient(appId: "test", clientKey: "client-key", masterKey: "master-key") { method, uri, headers, body in
                let response = try await http.executeRequest(uri: uri, method: method, headers: headers, body: body)
                return (response.status.code, response.headers, response.body)
            }
            for (id, type) in [("i1", "ios"), ("i2", "android")] {
                let installation = try await client.post(
                    "/installations", ["installationId": .string(id), "deviceType": .string(type), "deviceToken": .string("token-\(id)")])
                #expect(installation.status == 201, "\(installation.body)")
            }
            let pushed = try await client.post("/push", ["where": [:], "data": ["alert": "Hi"]], master: true)
            #expect(pushed.body == ["result": true])
            let id = try #require(pushed.headers[HTTPField.Name("X-Parse-Push-Status-Id")!], "\(pushed.body)")
            var status: ParseValue = .null
            try await eventually("the job finishes") {
                status = try await client.get("/classes/_PushStatus/\(id)", master: true).body
                return status["status"] == "succeeded"
            }
            // The app has no push settings: the log provider, the default, sends to every device type.
            #expect(status["numSent"] == 2)
            #expect(status["numFailed"] == 0)
            #expect(status["sentPerType"] == ["ios": 1, "android": 1])
            #expect(try await client.get("/classes/_PushStatus/\(id)").status == 404)
        }
    }
}
