import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL
import PushStandIns
import Testing

extension ProcessTests {
    /// A `cloudlet` server killed with SIGKILL in the middle of a fan-out through APNs (the stand-in)
    /// finishes the job after a restart on the same data folder: every device gets its notification,
    /// and only those whose answer was lost get it twice, with the same `apns-id`.
    @Suite struct PushCrashTests {
        static let installationCount = 2_000
        static let topic = "com.example.crash"

        @Test func aFanOutCutOffBySIGKILLDeliversToEveryDeviceAfterARestart() async throws {
            let data = try ServerProcess.temporaryFolder("push-crash")
            defer { try? FileManager.default.removeItem(at: data) }
            let keys = try PushTestKeys()
            defer { keys.remove() }
            // APNs answers each notification 100 ms after it arrives: 64 sends in flight move at most
            // 640 a second, so the fan-out of 2,000 is surely under way when the server is killed.
            let apns = try await APNsStandIn(
                publicKey: keys.apnsKey.publicKey, keyId: "CRASHKEY12", teamId: "TEAM123456", topic: Self.topic,
                responseDelay: .milliseconds(100))
            let caFile = keys.folder.appendingPathComponent("stand-in-ca.pem")
            try Data(try Self.pem(apns.server.certificate).utf8).write(to: caFile)

            let push: ParseValue = [
                "apns": [
                    "keyFile": .string(keys.apnsKeyFile), "keyId": "CRASHKEY12", "teamId": "TEAM123456", "topic": .string(Self.topic),
                    "url": .string(apns.server.url),
                ],
                "caFile": .string(caFile.path),
            ]
            let created = try await ServerProcess.run(
                .cloudlet,
                [
                    "apps", "create", "crash", "--isolation", "in-process", "--rate-limit", "off", "--push", JSONWriter.string(push), "--json",
                    "--data", data.path,
                ])
            #expect(created.ending == .exit(0), "\(created.stderr)")
            let app = try JSONParser.parse(Array(created.stdout.utf8))
            let clientKey = try #require(app["clientKey"]?.stringValue)
            let masterKey = try #require(app["masterKey"]?.stringValue)

            let first = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { first.killIfRunning() }
            let client = first.client(appId: "crash", clientKey: clientKey, masterKey: masterKey)
            let tokens = (0..<Self.installationCount).map { String(format: "%064x", $0 + 1) }
            try await Self.register(tokens, client: client)

            let sent = try await client.post("/push", ["where": ["deviceType": "ios"], "data": ["alert": "Deploy finished"]], master: true)
            #expect(sent.status == 200, "\(JSONWriter.string(sent.body))")
            let jobId = try #require(sent.headers[HTTPField.Name("X-Parse-Push-Status-Id")!])

            try await poll(timeout: .seconds(30), "the first notifications to arrive") { apns.acceptedCount >= 200 ? true : nil }
            #expect(try await first.kill() == .signal(SIGKILL))
            let arrivedBeforeTheKill = apns.acceptedCount
            try #require(arrivedBeforeTheKill < Self.installationCount, "the fan-out must be cut off mid-way")

            let restarted = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { restarted.killIfRunning() }
            let resumed = restarted.client(appId: "crash", clientKey: clientKey, masterKey: masterKey)
            var latest: ParseValue = .null
            let ended = try? await poll(timeout: .seconds(60), "the job to end") { () -> ParseValue? in
                latest = try await resumed.get("/classes/_PushStatus/\(jobId)", master: true).body
                guard ["succeeded", "failed", "expired"].contains(latest["status"]?.stringValue) else { return nil }
                return latest
            }
            let status = try #require(
                ended, "the job did not end: \(JSONWriter.string(latest)), \(apns.acceptedCount) sent; the server said:\n\(restarted.stderr.suffix(3000))")
            #expect(status["status"] == "succeeded", "\(JSONWriter.string(status))")
            #expect(status["count"]?.doubleValue == Double(Self.installationCount))
            #expect(status["numSent"]?.doubleValue == Double(Self.installationCount))
            #expect(status["numFailed"]?.doubleValue == 0)

            var idsByToken: [String: Set<String>] = [:]
            var receipts: [String: Int] = [:]
            for notification in apns.accepted {
                receipts[notification.token, default: 0] += 1
                idsByToken[notification.token, default: []].insert(notification.headers.first(name: "apns-id") ?? "")
            }
            let missed = tokens.filter { receipts[$0] == nil }
            #expect(missed.count == 0, "devices that got nothing, among them \(missed.prefix(3))")
            let repeated = receipts.filter { $0.value > 1 }
            #expect(repeated.allSatisfy { $0.value == 2 }, "a device gets a notification twice at most: once per run")
            #expect(idsByToken.values.allSatisfy { $0.count == 1 }, "every send of a delivery carries its apns-id")
            #expect(Set(idsByToken.values.compactMap(\.first)).count == Self.installationCount, "each delivery has an id of its own")
            // Sent twice: only deliveries whose answer the killed server had not recorded — those in
            // flight, and those answered but waiting for their batch's transaction.
            let configuration = PushDeliveryConfiguration()
            #expect(repeated.count <= configuration.concurrency + configuration.resultsPerTransaction, "\(repeated.count) sent twice")
            #expect(try await restarted.stop() == .exit(0))
            try await apns.stop()
        }

        /// Registers one ios installation per token, 50 a batch, four batches at a time.
        static func register(_ tokens: [String], client: ParseTestClient) async throws {
            let path = client.mountPath + "/classes/_Installation"
            let batches = stride(from: 0, to: tokens.count, by: 50).map { Array(tokens[$0..<min($0 + 50, tokens.count)]) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, batch) in batches.enumerated() {
                    if index >= 4 { try await group.next() }
                    group.addTask {
                        let requests: [ParseValue] = batch.map { token in
                            [
                                "method": "POST", "path": .string(path),
                                "body": ["installationId": .string(UUID().uuidString), "deviceType": "ios", "deviceToken": .string(token)],
                            ]
                        }
                        let reply = try await client.post("/batch", ["requests": .array(requests)], master: true)
                        let failures = reply.body.arrayValue?.filter { $0["success"] == nil } ?? [reply.body]
                        guard failures.isEmpty else {
                            throw ServerProcess.Failure(description: "registering installations failed: \(JSONWriter.string(.array(failures)))")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        /// `certificate` as PEM.
        static func pem(_ certificate: NIOSSLCertificate) throws -> String {
            let base64 = Data(try certificate.toDERBytes()).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }
    }
}
