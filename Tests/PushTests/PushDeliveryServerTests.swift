import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

/// The delivery service as the server runs it: a job recorded through the REST API is worked
/// through and its status read back with the master key.
@Suite struct PushDeliveryServerTests {
    @Test func theServerSendsAJobRecordedThroughTheAPIAndShowsItsStatusToTheMasterKeyOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .warning
        let server = try CloudletApplication(
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
            // Installations go straight to the app's storage (their routes are not part of this suite).
            let storage = try #require(server.apps.app("test")).runtime.storage
            for (id, type) in [("i1", "ios"), ("i2", "android")] {
                let installation = ParseObject(
                    className: "_Installation", objectId: id, createdAt: Date(), updatedAt: Date(),
                    fields: ["deviceToken": .string("token-\(id)"), "deviceType": .string(type)])
                try await storage.insert(installation, outbox: nil)
            }
            let job = PushJob(id: "", status: .pending, source: "rest", query: [:], data: ["alert": "Hi"])
            var body = job.fields
            body["ACL"] = [:]
            let recorded = try await client.post("/classes/_PushStatus", body, master: true)
            let id = try #require(recorded["objectId"]?.stringValue, "\(recorded.body)")
            var status: ParseValue = .null
            try await eventually("the job finishes") {
                status = try await client.get("/classes/_PushStatus/\(id)", master: true).body
                return status["status"] == "failed"
            }
            // The server hosts no provider for the app yet: each device type fails as NoProvider.
            #expect(status["numFailed"] == 2)
            #expect(status["failedPerType"] == ["ios": 1, "android": 1])
            #expect(status["failedPerReason"] == ["NoProvider": 2])
            #expect(try await client.get("/classes/_PushStatus/\(id)").status == 404)
        }
    }
}
