import Cloudlet
import CloudletServerTesting
import Foundation
import HTTPTypes
import PostgresTestServer
import Testing

extension ProcessTests {
    /// Two nodes serving one app from one PostgreSQL database: what one acknowledges the other
    /// serves, and a node killed under load loses nothing it acknowledged, its after hooks and the
    /// push it was fanning out finished by the node that survives once their leases run out.
    @Suite struct MultiNodeTests {
        /// The two nodes' settings: one database, the same keys, two nodes sharing each quota.
        static func nodeSettings(_ database: String) -> (arguments: [String], environment: [String: String]) {
            (["--master-key", "multi-node-master", "--client-key", "multi-node-client"], ["CLOUDLET_DATABASE": database, "CLOUDLET_NODES": "2"])
        }

        /// Saves `Later` objects through `client` until `end`, and answers the ids of those
        /// acknowledged (201); a save that fails (its node killed) is not counted.
        static func save(_ client: ParseTestClient, until end: ContinuousClock.Instant) async -> [String] {
            var acknowledged: [String] = []
            while ContinuousClock.now < end {
                guard let saved = try? await client.post("/classes/Later", ["waitMs": 100]), saved.status == 201,
                    let id = saved["objectId"]?.stringValue
                else {
                    try? await Task.sleep(for: .milliseconds(20))
                    continue
                }
                acknowledged.append(id)
            }
            return acknowledged
        }

        /// The values of `field` of up to 1,000 objects of `className`, read as master.
        static func values(_ field: String, of className: String, _ client: ParseTestClient) async throws -> Set<String> {
            let reply = try await client.get("/classes/\(className)", query: ["limit": 1000], master: true)
            return Set(reply["results"]?.arrayValue?.compactMap { $0[field]?.stringValue } ?? [])
        }

        @Test(.timeLimit(.minutes(3)))
        func aNodeKilledUnderSaveLoadLosesNoAcknowledgedSaveAndTheSurvivorRunsItsAfterHooks() async throws {
            let database = try await PostgresTestServer.shared.newDatabase()
            let (arguments, environment) = Self.nodeSettings(database)
            let folders = try [ServerProcess.temporaryFolder("node-a"), ServerProcess.temporaryFolder("node-b")]
            defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
            // Started at once, as nodes behind a load balancer are: both make sure of the same app.
            async let startingA = ServerProcess.serve(.fixture, data: folders[0], arguments: arguments, environment: environment)
            async let startingB = ServerProcess.serve(.fixture, data: folders[1], arguments: arguments, environment: environment)
            let (killed, survivor) = try await (startingA, startingB)
            defer {
                killed.killIfRunning()
                survivor.killIfRunning()
            }
            let clients = [killed.client(masterKey: "multi-node-master"), survivor.client(masterKey: "multi-node-master")]

            // What one node acknowledges, the other serves at once.
            let first = try await clients[0].post("/classes/Note", ["text": "through a"])
            #expect(first.status == 201)
            let id = try #require(first["objectId"]?.stringValue)
            #expect(try await clients[1].get("/classes/Note/\(id)", master: true)["text"] == "through a")

            // Devices registered through B, to be sent a push through A just before it dies.
            let devices = (0..<200).map { "device-\($0)" }
            try await PushCrashTests.register(devices, client: clients[1])

            let end = ContinuousClock.now + .seconds(3)
            async let throughA = Self.save(clients[0], until: end)
            async let throughB = Self.save(clients[1], until: end)
            // Under load through both, node A dies with after hooks of its saves queued or running.
            try await Task.sleep(for: .seconds(2))
            let push = try await clients[0].post("/push", ["where": ["deviceType": "ios"], "data": ["alert": "from a"]], master: true)
            #expect(push.status == 200)
            let jobId = try #require(push.headers[HTTPField.Name("X-Parse-Push-Status-Id")!])
            killed.send(SIGKILL)
            // Waited for longer than a lone kill is: beside two nodes, their workers, PostgreSQL and
            // the other tests, the killed process may be reaped late.
            #expect(try await killed.waitForExit(timeout: .seconds(60)) == .signal(SIGKILL))
            let acknowledged = await throughA + throughB
            let byA = await throughA.count
            #expect(byA > 0 && acknowledged.count > byA, "saves were acknowledged through both nodes")

            // Every acknowledged save is stored, and each has its after hook's mark (at least once:
            // a hook cut off by the kill runs again on the survivor once its lease runs out).
            let saved = try await Self.values("objectId", of: "Later", clients[1])
            #expect(Set(acknowledged).isSubset(of: saved), "\(Set(acknowledged).subtracting(saved).count) acknowledged saves lost")
            let marked = try await poll(timeout: .seconds(60), "every acknowledged save's after hook to run") {
                let marks = try await Self.values("savedId", of: "LaterMark", clients[1])
                return Set(acknowledged).isSubset(of: marks) ? marks : nil
            }
            #expect(Set(acknowledged).isSubset(of: marked))

            // The push reaches every device once in the job's count, whichever node sent each.
            let status = try await poll(timeout: .seconds(60), "the push job to end") { () -> ParseValue? in
                let status = try await clients[1].get("/classes/_PushStatus/\(jobId)", master: true).body
                guard ["succeeded", "failed", "expired"].contains(status["status"]?.stringValue) else { return nil }
                return status
            }
            #expect(status["status"] == "succeeded", "\(JSONWriter.string(status))")
            #expect(status["numSent"]?.doubleValue == Double(devices.count), "\(JSONWriter.string(status))")
        }
    }
}
