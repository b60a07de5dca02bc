import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

extension ProcessTests {
    /// The app registry from the outside: `cloudlet apps` against a running server, the operator
    /// key, the config file and its precedence, and the start-up manifest.
    @Suite struct RegistryTests {
        /// Waits until `condition` holds, for at most `timeout`.
        static func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
            let giveUp = ContinuousClock.now + timeout
            while ContinuousClock.now < giveUp {
                if try await condition() { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return try await condition()
        }

        /// Runs `cloudlet apps <arguments> --data <data>` and answers what it printed; expects success.
        static func apps(_ arguments: [String], data: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
            let run = try await ServerProcess.run(.cloudlet, ["apps"] + arguments + ["--data", data.path])
            #expect(run.ending == .exit(0), "\(run.stderr)", sourceLocation: sourceLocation)
            return run.stdout
        }

        /// The live (not zombie) child processes of `pid`, from `/proc/<pid>/stat`.
        static func childProcesses(of pid: Int32) throws -> Set<Int32> {
            let entries = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init)
            return Set(
                entries.filter { child in
                    guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                        let end = stat.lastIndex(of: ")")
                    else { return false }
                    let fields = stat[stat.index(after: end)...].split(separator: " ")
                    return fields.count > 2 && fields[0] != "Z" && fields[1] == "\(pid)"
                })
        }

        @Test func appsMadeWithTheCommandLineServeAndStopWithoutARestart() async throws {
            let data = try ServerProcess.temporaryFolder("registry")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { server.killIfRunning() }

            let created = try JSONParser.parse(
                try await Self.apps(["create", "shop", "--isolation", "in-process", "--rate-limit", "off", "--json"], data: data))
            let clientKey = try #require(created["clientKey"]?.stringValue)
            let masterKey = try #require(created["masterKey"]?.stringValue)
            let shop = server.client(appId: "shop", clientKey: clientKey, masterKey: masterKey)
            #expect(try await Self.eventually { try await shop.get("/classes/Posts").status == 200 }, "the new app is served")
            #expect(try await shop.post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!")
            #expect(try await Self.apps(["list"], data: data).contains("shop\tself\tin-process\t1\t256\t60000\t31536000\ttrue\t-\t-\ttrue\toff"))

            let newClientKey = try await Self.apps(["rotate-key", "shop", "client"], data: data)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let rotated = server.client(appId: "shop", clientKey: newClientKey, masterKey: masterKey)
            #expect(try await Self.eventually { try await rotated.get("/classes/Posts").status == 200 })
            #expect(try await shop.get("/classes/Posts").status == 200, "the old client key stays valid until retired")
            _ = try await Self.apps(["retire-key", "shop", "client"], data: data)
            #expect(try await Self.eventually { try await shop.get("/classes/Posts").status == 403 })
            #expect(try await rotated.get("/classes/Posts").status == 200)

            _ = try await Self.apps(["delete", "shop"], data: data)
            #expect(try await Self.eventually { try await rotated.get("/classes/Posts").status == 403 })
            let refused = try await rotated.get("/classes/Posts")
            #expect(refused["code"] == 119)
            #expect(try await server.stop() == .exit(0))
        }

        @Test func aWorkerPoolStartedWhileServingIsReplacedWhenItsSettingsChangeAndEndsWithTheServer() async throws {
            let data = try ServerProcess.temporaryFolder("registry-pool")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { server.killIfRunning() }

            let created = try JSONParser.parse(
                try await Self.apps(["create", "pooled", "--workers", "1", "--rate-limit", "off", "--json"], data: data))
            let pooled = server.client(
                appId: "pooled", clientKey: created["clientKey"]?.stringValue ?? "", masterKey: created["masterKey"]?.stringValue ?? "")
            #expect(try await Self.eventually { try await pooled.post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!" })
            let workers = { try Self.childProcesses(of: server.pid) }
            let first = try workers()
            #expect(first.count == 1, "one worker process of the new app")

            _ = try await Self.apps(["update", "pooled", "--workers", "2"], data: data)
            #expect(try await Self.eventually { try workers().subtracting(first).count == 2 }, "a new pool of two workers")
            #expect(try await pooled.post("/functions/hello", ["name": "Bo"])["result"] == "Hello, Bo!")
            // The old pool drains for its longest hook time limit (15 s here); a graceful stop cuts that short.
            #expect(try await server.stop() == .exit(0))
        }

        @Test func theGeneratedOperatorKeyOpensTheAdminAPIAndAnAppsMasterKeyDoesNot() async throws {
            let data = try ServerProcess.temporaryFolder("operator")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { server.killIfRunning() }
            let line = try #require(server.stdout.firstMatch(of: /operator key: (\S+)  \(shown this once/))
            let send = ServerProcess.transport(port: server.port, timeout: .seconds(15))
            let operatorHeader = HTTPField.Name("X-Cloudlet-Operator-Key")!
            let opened = try await send(.get, "/admin/apps", [operatorHeader: String(line.1)], nil)
            #expect(opened.0 == 200)
            #expect(try JSONParser.parse(Array(opened.2.readableBytesView))["results"]?.arrayValue?.first?["id"] == "dev")
            let masterKey = try #require(server.banner.masterKey)
            #expect(try await send(.get, "/admin/apps", [operatorHeader: masterKey], nil).0 == 401)
            #expect(try await send(.get, "/admin/apps", [.authorization: "Bearer \(masterKey)"], nil).0 == 401)
            #expect(try await server.stop() == .exit(0))

            let again = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { again.killIfRunning() }
            #expect(again.stdout.contains("operator key: kept hashed in host.sqlite"))
            let reopened = ServerProcess.transport(port: again.port, timeout: .seconds(15))
            #expect(try await reopened(.get, "/admin/apps", [operatorHeader: String(line.1)], nil).0 == 200)
            #expect(try await again.stop() == .exit(0))
        }
    }
}
