import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// An app's hooks executable, from the outside: `cloudlet apps` refuses one that cannot run, and
    /// `serve` goes on without an app whose executable went missing after it was registered.
    @Suite struct HooksExecutableTests {
        @Test func appsCreateAndUpdateRefuseHooksThatAreNoExecutableFile() async throws {
            let data = try ServerProcess.temporaryFolder("hooks-refused")
            defer { try? FileManager.default.removeItem(at: data) }
            let plain = data.appendingPathComponent("hooks.txt").path
            #expect(FileManager.default.createFile(atPath: plain, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o644]))
            let missing = data.appendingPathComponent("missing").path
            for (path, problem) in [(missing, "does not exist"), (plain, "is not an executable file")] {
                let run = try await ServerProcess.run(.cloudlet, ["apps", "create", "shop", "--hooks", path, "--data", data.path])
                #expect(run.ending == .exit(1))
                #expect(run.stderr.contains("error: hooks: \(path) \(problem)"), "\(run.stderr)")
            }
            #expect(try await RegistryTests.apps(["list"], data: data).isEmpty, "nothing was created")
            _ = try await RegistryTests.apps(["create", "shop"], data: data)
            let update = try await ServerProcess.run(.cloudlet, ["apps", "update", "shop", "--hooks", missing, "--data", data.path])
            #expect(update.ending == .exit(1))
            #expect(try await RegistryTests.apps(["list"], data: data).hasPrefix("shop\tself\t"), "the app is unchanged")
        }

        @Test func serveGoesOnWithoutAnAppWhoseHooksExecutableWentMissing() async throws {
            let data = try ServerProcess.temporaryFolder("hooks-gone")
            defer { try? FileManager.default.removeItem(at: data) }
            let hooks = data.appendingPathComponent("hooks")
            try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/true"), to: hooks)
            _ = try await RegistryTests.apps(["create", "gone", "--hooks", hooks.path], data: data)
            let created = try JSONParser.parse(
                try await RegistryTests.apps(["create", "shop", "--isolation", "in-process", "--rate-limit", "off", "--json"], data: data))
            try FileManager.default.removeItem(at: hooks)

            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { server.killIfRunning() }
            let shop = server.client(
                appId: "shop", clientKey: created["clientKey"]?.stringValue, masterKey: created["masterKey"]?.stringValue)
            #expect(try await shop.get("/classes/Posts").status == 200, "the other apps serve")
            let refused = try await server.client(appId: "gone", clientKey: "any").get("/classes/Posts")
            #expect(refused.status == 503)
            #expect(refused["code"] == 1)
            #expect(refused["error"] == "application gone is not running: the server could not start it")
            #expect(server.stderr.contains("app not started"), "\(server.stderr)")
            #expect(server.stderr.contains("\(hooks.path) does not exist"), "\(server.stderr)")
            #expect(try await server.stop() == .exit(0))
        }
    }
}
