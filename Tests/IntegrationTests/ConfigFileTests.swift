import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// `serve --config`: the file's members under environment variables and flags, its apps, the
    /// manifest, and the example in docs/hosting.md.
    @Suite struct ConfigFileTests {
        /// Writes `json` to `config.json` in `folder` and answers its path.
        static func write(_ json: String, in folder: URL) throws -> String {
            let file = folder.appendingPathComponent("config.json")
            try Data(json.utf8).write(to: file)
            return file.path
        }

        @Test func flagsWinOverVariablesWhichWinOverTheFile() async throws {
            let folder = try ServerProcess.temporaryFolder("config")
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = try Self.write(
                #"{"appId": "fileapp", "mountPath": "/file", "clientKey": "file-client", "isolation": "in-process"}"#, in: folder)
            let server = try await ServerProcess.serve(
                .cloudlet, data: folder.appendingPathComponent("data"), arguments: ["--config", config, "--app-id", "flagapp"],
                environment: ["CLOUDLET_APP_ID": "envapp", "CLOUDLET_MOUNT_PATH": "/env"])
            defer { server.killIfRunning() }
            #expect(server.banner.appId == "flagapp", "the flag beats the variable and the file")
            #expect(server.banner.mountPath == "/env", "the variable beats the file")
            #expect(server.banner.clientKey == "file-client", "the file beats the default")
            #expect(try await server.client().get("/classes/Posts").status == 200)
            #expect(try await server.stop() == .exit(0))
        }

        @Test func anUnknownMemberIsAnErrorNamingIt() async throws {
            let folder = try ServerProcess.temporaryFolder("config")
            defer { try? FileManager.default.removeItem(at: folder) }
            for (json, member) in [(#"{"prot": 1337}"#, "prot"), (#"{"apps": [{"id": "x", "worker": 2}]}"#, "worker")] {
                let config = try Self.write(json, in: folder)
                let run = try await ServerProcess.run(.cloudlet, ["serve", "--config", config, "--data", folder.path, "--port", "0"])
                #expect(run.ending == .exit(64), "\(run.stdout)")
                #expect(run.stderr.contains("unknown member: \(member)"), "\(run.stderr)")
            }
        }

        @Test func aHookOverItsAppsCapStopsTheServerWithAClearMessage() async throws {
            let folder = try ServerProcess.temporaryFolder("config")
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = try Self.write(#"{"isolation": "in-process", "apps": [{"id": "dev", "maxHookTimeLimitMs": 1000}]}"#, in: folder)
            let run = try await ServerProcess.run(.cloudlet, ["serve", "--config", config, "--data", folder.path, "--port", "0"])
            #expect(run.ending == .exit(1))
            #expect(
                run.stderr.contains("app \"dev\" refused: its afterSave hook Posts has a time limit of 3.0 seconds, over the app's cap of 1.0 seconds"),
                "\(run.stderr)")
            #expect(!run.stdout.contains("Cloudlet is serving"))
        }

        @Test func theReadmeExampleServesTwoAppsWithDifferentLimits() async throws {
            let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/hosting.md")
            let text = try String(contentsOf: readme, encoding: .utf8)
            let example = try #require(text.firstMatch(of: /<!-- config example -->\s*```json\n([\s\S]*?)```/), "no config example in docs/hosting.md")
            let folder = try ServerProcess.temporaryFolder("readme-config")
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = try Self.write(String(example.1), in: folder)
            // The flags put the server on a free port and a fresh folder; everything else is the file's.
            let server = try await ServerProcess.serve(.cloudlet, data: folder.appendingPathComponent("data"), arguments: ["--config", config])
            defer { server.killIfRunning() }
            let stdout = server.stdout
            let chat = try #require(stdout.firstMatch(of: #/app "chat": [^\n]*\n  rate ([^ ]+) /#))
            let alerts = try #require(stdout.firstMatch(of: #/app "alerts": [^\n]*\n  rate ([^ ]+) /#))
            #expect(chat.1 == "100/s,burst=200,")
            #expect(alerts.1 == "10/s,burst=20,")
            #expect(server.banner.appId == "chat")
            #expect(try await server.client().post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!")
            let line = try #require(stdout.firstMatch(of: /also serving app "alerts": client key (\S+), master key (\S+)/))
            let other = server.client(appId: "alerts", clientKey: String(line.1), masterKey: String(line.2))
            #expect(try await other.get("/classes/Posts").status == 200)
            #expect(try await server.stop() == .exit(0))
        }
    }
}
