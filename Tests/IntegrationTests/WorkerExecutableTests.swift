import Cloudlet
import CloudletServerTesting
import Foundation
import Testing

extension ProcessTests {
    /// An app's executable built with `CloudletWorker` (the SDK and the worker entry point, no
    /// server) is served by a host as the full command line's executable would be.
    @Suite struct WorkerExecutableTests {
        static var worker: String { ServerProcess.Binary.workerFixture.url.path }

        @Test func aHostServesAWorkerOnlyExecutable() async throws {
            let data = try ServerProcess.temporaryFolder("worker-only")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--app", "shop=\(Self.worker)"])
            defer { server.killIfRunning() }
            let line = try #require(server.stdout.firstMatch(of: /also serving app "shop": client key (\S+), master key (\S+)/))
            let shop = server.client(appId: "shop", clientKey: String(line.1), masterKey: String(line.2))
            let reply = try await shop.post("/functions/hello", ["name": "Ada"])
            #expect(reply.status == 200, "\(JSONWriter.string(reply.body))")
            #expect(reply["result"] == "Hello from a worker, Ada!")
            #expect(try await server.stop() == .exit(0))
        }

        @Test func itListsItsHooksAndTheHostSchedulesItsJobs() async throws {
            let listed = try await ServerProcess.run(.workerFixture, ["hooks", "list"])
            #expect(listed.ending == .exit(0))
            #expect(listed.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(2) } == [["function", "hello"], ["job", "tidy"]])

            let data = try ServerProcess.temporaryFolder("worker-only-jobs")
            defer { try? FileManager.default.removeItem(at: data) }
            _ = try await RegistryTests.apps(["create", "shop", "--hooks", Self.worker], data: data)
            let scheduled = try await ServerProcess.run(.cloudlet, ["jobs", "schedule", "shop", "tidy", "0 3 * * *", "--data", data.path])
            #expect(scheduled.ending == .exit(0), "\(scheduled.stderr)")
            let refused = try await ServerProcess.run(.cloudlet, ["jobs", "schedule", "shop", "nosuch", "0 3 * * *", "--data", data.path])
            #expect(refused.stderr.contains(#"error: app "shop" has no job nosuch"#), "\(refused.stderr)")
        }

        @Test func itAnswersHelpAndRefusesWhatIsNotAWorkersCommand() async throws {
            let help = try await ServerProcess.run(.workerFixture, ["--help"])
            #expect(help.ending == .exit(0))
            #expect(help.stdout.contains("worker [--memory-limit-mb <n>]"))
            let refused = try await ServerProcess.run(.workerFixture, ["serve", "--port", "0"])
            #expect(refused.ending == .exit(64))
            #expect(refused.stderr.contains("error: unknown command 'serve --port 0'"), "\(refused.stderr)")
            let started = try await ServerProcess.run(.workerFixture, ["worker"])
            #expect(started.ending == .exit(1), "standard input is no host's socket")
            #expect(started.stderr.contains("started by a Cloudlet host"), "\(started.stderr)")
        }
    }
}
