import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProcessTests {
    /// Worker processes belong to their pool's service: started by its `run()`, stopped with
    /// SIGTERM (SIGKILL after the grace) when it stops or is cancelled, and waited for by `/ready`
    /// and by the calls that arrive before them.
    @Suite(.timing) struct WorkerServiceTests {
        /// Whether a process with `pid` exists (a zombie counts: it was not reaped).
        static func exists(_ pid: Int) -> Bool {
            kill(pid_t(pid), 0) == 0 || errno != ESRCH
        }

        /// Whether process `pid` has a SIGTERM it has not handled yet (one sent now would merge with it).
        static func holdsPendingTerm(_ pid: Int) -> Bool {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").contains { line in
                guard line.hasPrefix("ShdPnd:") || line.hasPrefix("SigPnd:"), let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) else { return false }
                return mask & (1 << UInt64(SIGTERM - 1)) != 0
            }
        }

        @Test func readyAndCallsWaitForTheWorkersTheSupervisorStartsAndCancellingItLeavesNoWorker() async throws {
            let folder = try ServerProcess.temporaryFolder("worker-service")
            defer { try? FileManager.default.removeItem(at: folder) }
            let logs = CapturedLogs()
            let logger = logs.logger(label: "cloudlet")
            let registry = try AppRegistry(dataDirectory: folder.path)
            let app = try await registry.create(
                "fixture",
                settings: {
                    var settings = AppSettings()
                    settings.hooksExecutable = ServerProcess.Binary.fixture.url.path
                    settings.workerCount = 2
                    return settings
                }())
            var configuration = ServerConfiguration(dataDirectory: folder.path, passwordHashCost: 4)
            configuration.minimumFreeDiskBytes = 0
            let server = try await CloudletApplication(
                configuration: configuration, registry: registry, launcher: AppLauncher(logger: logger, hookLogger: logger), logger: logger)
            // Loading learns the app's hooks from one worker, which it stops: none runs until the supervisor does.
            try await server.loadApps()
            let pool = try #require(server.supervisor.pools.first)
            try await Application(router: server.router(), logger: logger).test(.router) { client in
                let transport: ParseTestClient.Transport = { method, uri, headers, body in
                    let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
                    return (response.status.code, response.headers, response.body)
                }
                let operations = ParseTestClient(appId: "", clientKey: "", masterKey: "", mountPath: "", transport: transport)
                let parse = ParseTestClient(appId: "fixture", clientKey: app.clientKey, masterKey: app.masterKey, transport: transport)
                let notReady = try await operations.get("/ready")
                #expect(notReady.status == 503)
                #expect(notReady["notReady"] == ["fixture"])
                let call = Task { try await parse.post("/functions/pid") }
                _ = try await poll("the call waiting for a worker") { pool.queuedInvocations == 1 ? true : nil }

                let supervisor = Task { try await server.supervisor.run() }
                let reply = try await call.value
                #expect(reply.status == 200)
                let pid = try #require(reply["result"]?.intValue)
                _ = try await poll("ready once both workers said hello") { try await operations.get("/ready").status == 200 ? true : nil }
                #expect(Self.exists(pid))

                supervisor.cancel()
                try? await supervisor.value
                #expect(!Self.exists(pid), "cancelling the supervisor's task ended and reaped its workers")
                #expect(!pool.isReady)
            }
        }

        @Test func aWorkerThatIgnoresSIGTERMIsKilledAfterTheGraceAndOutlivesNoPool() async throws {
            let (pid, logs) = try await HookHarness.withWorkers(executablePath: ServerProcess.Binary.fixture.url.path) { harness in
                let pid = try #require(try await harness.call("holdOnStop").intValue)
                return (pid, harness.logs)
            }
            // The harness returns once its pool's task, cancelled, has ended: its worker with it.
            #expect(!Self.exists(pid))
            let ends = logs.all.filter { $0.metadata["worker.pid"] == "\(pid)" && $0.message.hasPrefix("worker") && $0.message != "worker ready" }
            #expect(ends.map(\.message) == ["worker did not end within its stop grace after SIGTERM; killed"], "\(ends)")
        }

        @Test func aWorkerEndsAtOnceOnItsHostsSIGTERMAndIgnoresAnyoneElses() async throws {
            try await HookHarness.withWorkers(executablePath: ServerProcess.Binary.fixture.url.path) { harness in
                let pid = try #require(try await harness.call("pid").intValue)
                let stranger = try Process.run(URL(fileURLWithPath: "/bin/kill"), arguments: ["-TERM", "\(pid)"])
                stranger.waitUntilExit()
                _ = try await poll("the stranger's SIGTERM to be handled") { Self.holdsPendingTerm(pid) ? nil : true }
                #expect(try await harness.call("pid").intValue == pid, "SIGTERM from another process is ignored")

                kill(pid_t(pid), SIGTERM)
                let ending = try await poll(timeout: .seconds(30), "the worker's end") {
                    harness.logs.all.first { $0.metadata["worker.pid"] == "\(pid)" && $0.message == "worker ended" }
                }
                #expect(ending.metadata["worker.exit"] == "exited with status 0")
                #expect(try await harness.call("pid").intValue != pid, "a new worker serves")
            }
        }
    }
}
