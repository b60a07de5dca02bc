import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

extension ProcessTests {
    /// `cloudlet serve`: start-up banner, keys, health, and settings from flags and `CLOUDLET_*`.
    @Suite struct ServeCommandTests {
        @Test func printsKeysAnswersHealthAndKeepsGeneratedKeys() async throws {
            let data = try ServerProcess.temporaryFolder("serve")
            defer { try? FileManager.default.removeItem(at: data) }

            let server = try await ServerProcess.serve(.cloudlet, data: data)
            defer { server.killIfRunning() }
            let banner = server.banner
            #expect(banner.appId == "dev")
            #expect(banner.mountPath == "/parse")
            #expect(!banner.clientKey.isEmpty)
            let masterKey = try #require(banner.masterKey, "the first start shows the new master key")
            #expect(!masterKey.isEmpty)
            #expect(banner.clientKey != masterKey)
            #expect(server.stdout.contains("http://127.0.0.1:\(banner.port)/parse"))

            let client = server.client()
            let health = try await client.health()
            #expect(health.status == 200)
            #expect(health["status"] == "ok")
            #expect(try await client.get("/classes/Posts").status == 200)
            #expect(try await client.get("/classes/Posts", master: true).status == 200)
            #expect(try await server.stop() == .exit(0))

            // A second start on the same folder, without key flags, keeps the generated keys; the
            // master key is kept only as its hash, so it is not shown again.
            let again = try await ServerProcess.serve(.cloudlet, data: data)
            defer { again.killIfRunning() }
            #expect(again.banner.clientKey == banner.clientKey)
            #expect(again.banner.masterKey == nil)
            #expect(again.stdout.contains("master key: kept hashed in host.sqlite"))
            let sameKeys = again.client(clientKey: banner.clientKey, masterKey: masterKey)
            #expect(try await sameKeys.get("/classes/Posts").status == 200)
            #expect(try await sameKeys.get("/classes/Posts", master: true).status == 200)

            // A second server on the folder the first serves is refused, naming the first.
            let second = try await ServerProcess.run(.cloudlet, ["serve", "--data", data.path, "--port", "0"])
            #expect(second.ending == .exit(1))
            #expect(second.stderr.contains("is served by process \(again.pid) already"), "stderr: \(second.stderr)")
            #expect(try await sameKeys.get("/classes/Posts").status == 200, "the first still serves")
            #expect(try await again.stop() == .exit(0))
        }

        @Test func fixedKeysAreRequired() async throws {
            let data = try ServerProcess.temporaryFolder("keys")
            defer { try? FileManager.default.removeItem(at: data) }

            let server = try await ServerProcess.serve(
                .cloudlet, data: data, arguments: ["--client-key", "client-123", "--master-key", "master-456"])
            defer { server.killIfRunning() }
            #expect(server.banner.clientKey == "client-123")
            #expect(server.banner.masterKey == "master-456")

            let good = server.client(clientKey: "client-123", masterKey: "master-456")
            #expect(try await good.get("/classes/Posts").status == 200)
            #expect(try await good.get("/classes/Posts", master: true).status == 200)

            let wrongClient = try await server.client(clientKey: "client-999").get("/classes/Posts")
            #expect(wrongClient.status == 403)
            #expect(wrongClient["code"] == 119)
            let wrongMaster = try await server.client(masterKey: "master-999").get("/classes/Posts", master: true)
            #expect(wrongMaster.status == 403)
            #expect(wrongMaster["code"] == 119)
            let wrongApp = try await server.client(appId: "other").get("/classes/Posts")
            #expect(wrongApp.status == 403)
            let noKey = try await good.raw(.get, "/classes/Posts", headers: [.init("X-Parse-Application-Id")!: "dev"], body: nil)
            #expect(noKey.status == 403)
            #expect(try await server.stop() == .exit(0))
        }

        @Test func mountPathMovesTheAPI() async throws {
            let data = try ServerProcess.temporaryFolder("mount")
            defer { try? FileManager.default.removeItem(at: data) }

            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--mount-path", "/api"])
            defer { server.killIfRunning() }
            #expect(server.banner.mountPath == "/api")
            let client = server.client()
            #expect(try await client.health().status == 200)
            #expect(try await client.post("/classes/Posts", ["title": "Moved"]).status == 201)
            let send = ServerProcess.transport(port: server.port, timeout: .seconds(15))
            #expect(try await send(.get, "/parse/health", [:], nil).0 == 404)
            #expect(try await server.stop() == .exit(0))
        }

        @Test func aLongHookCPUThatIsNoNumberOfCoresIsRefused() async throws {
            let data = try ServerProcess.temporaryFolder("long-hook-cpu")
            defer { try? FileManager.default.removeItem(at: data) }
            for value in ["inf", "-0.5", "lots"] {
                let run = try await ServerProcess.run(.cloudlet, ["serve", "--long-hook-cpu=\(value)", "--data", data.path, "--port", "0"])
                #expect(run.ending != .exit(0), "--long-hook-cpu=\(value) was taken")
                #expect(run.stderr.contains("long-hook-cpu"), "stderr: \(run.stderr)")
            }
            let variable = try await ServerProcess.run(
                .cloudlet, ["serve", "--data", data.path, "--port", "0"], environment: ["CLOUDLET_LONG_HOOK_CPU": "-1"])
            #expect(variable.ending != .exit(0))
            #expect(variable.stderr.contains("CLOUDLET_LONG_HOOK_CPU has an invalid value: -1"), "stderr: \(variable.stderr)")
        }

        @Test func environmentVariablesAndFlagsWin() async throws {
            let data = try ServerProcess.temporaryFolder("env")
            let other = try ServerProcess.temporaryFolder("env-flags")
            defer {
                try? FileManager.default.removeItem(at: data)
                try? FileManager.default.removeItem(at: other)
            }

            // CLOUDLET_APP_ID names the app.
            let first = try await ServerProcess.serve(.cloudlet, data: data, environment: ["CLOUDLET_APP_ID": "envapp"])
            defer { first.killIfRunning() }
            #expect(first.banner.appId == "envapp")
            #expect(try await first.client().get("/classes/Posts").status == 200)
            #expect(try await first.client(appId: "dev").get("/classes/Posts").status == 403)
            let port = first.port
            #expect(try await first.stop() == .exit(0))

            // CLOUDLET_PORT sets the port when there is no --port flag.
            let environment = [
                "CLOUDLET_PORT": String(port), "CLOUDLET_APP_ID": "envapp", "CLOUDLET_MASTER_KEY": "env-master",
            ]
            let second = try await ServerProcess.serve(.cloudlet, data: data, environment: environment, port: nil)
            defer { second.killIfRunning() }
            #expect(second.port == port)
            #expect(second.banner.appId == "envapp")
            #expect(second.banner.masterKey == "env-master")
            #expect(try await second.client().health().status == 200)

            // Flags beat the variables (the port is still taken by `second`, so --port 0 must win).
            let third = try await ServerProcess.serve(
                .cloudlet, data: other, arguments: ["--app-id", "flagapp", "--master-key", "flag-master"],
                environment: environment, port: 0)
            defer { third.killIfRunning() }
            #expect(third.port != port)
            #expect(third.banner.appId == "flagapp")
            #expect(third.banner.masterKey == "flag-master")
            #expect(try await third.client().get("/classes/Posts", master: true).status == 200)
            #expect(try await third.client(appId: "envapp").get("/classes/Posts").status == 403)

            #expect(try await third.stop() == .exit(0))
            #expect(try await second.stop() == .exit(0))
        }
    }
}
