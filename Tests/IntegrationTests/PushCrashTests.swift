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
    /// A `cloudlet` server stopped in the middle of a fan-out through APNs (the stand-in) finishes
    /// the job after a restart on the same data folder: every device gets its notification, and only
    /// those whose send was cut off get it twice, with the same `apns-id`. Killed with SIGKILL, what
    /// it held is taken back by the next server on the folder as it starts; stopped gracefully, it hands back what it
    /// held before it exits.
    @Suite struct PushCrashTests {
        static let installationCount = 600
        static let topic = "com.example.crash"

        /// A data folder with app `crash` sending to `apns`, and its keys.
        struct Scenario {
            let data: URL
            let keys: PushTestKeys
            let apns: APNsStandIn
            let clientKey: String
            let masterKey: String
            let tokens = (0..<PushCrashTests.installationCount).map { String(format: "%064x", $0 + 1) }

            init(_ name: String) async throws {
                data = try ServerProcess.temporaryFolder(name)
                keys = try PushTestKeys()
                // APNs answers each notification 100 ms after it arrives: 32 sends in flight move at
                // most 320 a second, so the fan-out of 600 is surely under way, and not over (1.5 s
                // from its end at the least), when the server is stopped after the first 100.
                apns = try await APNsStandIn(
                    publicKey: keys.apnsKey.publicKey, keyId: "CRASHKEY12", teamId: "TEAM123456", topic: PushCrashTests.topic,
                    responseDelay: .milliseconds(100))
                let caFile = keys.folder.appendingPathComponent("stand-in-ca.pem")
                try Data(try PushCrashTests.pem(apns.server.certificate).utf8).write(to: caFile)
                let push: ParseValue = [
                    "apns": [
                        "keyFile": .string(keys.apnsKeyFile), "keyId": "CRASHKEY12", "teamId": "TEAM123456",
                        "topic": .string(PushCrashTests.topic), "url": .string(apns.server.url),
                    ],
                    "caFile": .string(caFile.path),
                ]
                let created = try await ServerProcess.run(
                    .cloudlet,
                    [
                        "apps", "create", "crash", "--isolation", "in-process", "--rate-limit", "off", "--push", JSONWriter.string(push),
                        "--json", "--data", data.path,
                    ])
                #expect(created.ending == .exit(0), "\(created.stderr)")
                let app = try JSONParser.parse(Array(created.stdout.utf8))
                clientKey = try #require(app["clientKey"]?.stringValue)
                masterKey = try #require(app["masterKey"]?.stringValue)
            }

            func serve() async throws -> ServerProcess {
                try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            }

            func client(_ server: ServerProcess) -> ParseTestClient {
                server.client(appId: "crash", clientKey: clientKey, masterKey: masterKey)
            }

            /// Registers the devices, sends the push, and waits for the first notifications; answers the job's id.
            func startFanOut(on server: ServerProcess) async throws -> String {
                let client = client(server)
                try await PushCrashTests.register(tokens, client: client)
                let sent = try await client.post("/push", ["where": ["deviceType": "ios"], "data": ["alert": "Deploy finished"]], master: true)
                #expect(sent.status == 200, "\(JSONWriter.string(sent.body))")
                let jobId = try #require(sent.headers[HTTPField.Name("X-Parse-Push-Status-Id")!])
                try await poll(timeout: .seconds(30), "the first notifications to arrive") { apns.acceptedCount >= 100 ? true : nil }
                return jobId
            }

            /// Restarts the server, waits for job `jobId` to end, and checks that every device got its
            /// notification: at most twice, and only `resent` at most twice.
            func finishAfterRestart(_ jobId: String, resentAtMost resent: Int) async throws {
                let arrivedBeforeTheStop = apns.acceptedCount
                try #require(arrivedBeforeTheStop < PushCrashTests.installationCount, "the fan-out must be cut off mid-way")
                let restarted = try await serve()
                defer { restarted.killIfRunning() }
                let resumed = client(restarted)
                var latest: ParseValue = .null
                let ended = try? await poll(timeout: .seconds(60), "the job to end") { () -> ParseValue? in
                    latest = try await resumed.get("/classes/_PushStatus/\(jobId)", master: true).body
                    guard ["succeeded", "failed", "expired"].contains(latest["status"]?.stringValue) else { return nil }
                    return latest
                }
                let status = try #require(
                    ended, "the job did not end: \(JSONWriter.string(latest)), \(apns.acceptedCount) sent; the server said:\n\(restarted.stderr.suffix(3000))")
                #expect(status["status"] == "succeeded", "\(JSONWriter.string(status))")
                #expect(status["count"]?.doubleValue == Double(PushCrashTests.installationCount))
                #expect(status["numSent"]?.doubleValue == Double(PushCrashTests.installationCount))
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
                #expect(Set(idsByToken.values.compactMap(\.first)).count == PushCrashTests.installationCount, "each delivery has an id of its own")
                #expect(repeated.count <= resent, "\(repeated.count) sent twice")
                #expect(try await restarted.stop() == .exit(0))
            }

            func remove() async throws {
                try await apns.stop()
                try? FileManager.default.removeItem(at: data)
                keys.remove()
            }
        }

        @Test func aFanOutCutOffBySIGKILLDeliversToEveryDeviceAfterARestart() async throws {
            let scenario = try await Scenario("push-crash")
            let first = try await scenario.serve()
            defer { first.killIfRunning() }
            let jobId = try await scenario.startFanOut(on: first)
            #expect(try await first.kill() == .signal(SIGKILL))
            // Sent twice: only deliveries whose outcome the killed server had not recorded — those in flight.
            try await scenario.finishAfterRestart(jobId, resentAtMost: WorkSettings().concurrency)
            try await scenario.remove()
        }

        /// A graceful stop (SIGTERM) mid-fan-out leaves no delivery leased: each one in flight is
        /// recorded or handed back, due at once, before the server exits.
        @Test func aFanOutStoppedGracefullyHandsBackWhatItHeldAndDeliversToEveryDeviceAfterARestart() async throws {
            let scenario = try await Scenario("push-stop")
            let first = try await scenario.serve()
            defer { first.killIfRunning() }
            let jobId = try await scenario.startFanOut(on: first)
            #expect(try await first.stop() == .exit(0))
            do {
                let stores = AppStores(try SQLiteAppDatabase(path: scenario.data.appendingPathComponent("apps/crash.sqlite").path))
                let progress = try #require(try await stores.push.pushJobProgress(jobId))
                let now = Date()
                let due = try await stores.work.claim([.pushDelivery], limit: 10_000, owner: "test", at: now, leasedUntil: now)
                #expect(due.compactMap(PushDelivery.init).count == progress.pending, "every delivery not ended is due at once")
                #expect(try await stores.work.release(due.map(\.id), owner: "test", at: now) == due.count)
            }
            try await scenario.finishAfterRestart(jobId, resentAtMost: WorkSettings().concurrency)
            try await scenario.remove()
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
