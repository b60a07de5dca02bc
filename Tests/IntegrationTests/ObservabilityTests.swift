import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import PostgresTestServer
import Testing

extension ProcessTests {
    /// `/metrics`, `/ready`, JSON logs and `cloudlet logs` against a real server with worker processes.
    @Suite struct ObservabilityTests {
        static let operatorKey = "op-key"

        /// `GET path` from the server's root with the operator key: status and body text.
        static func operatorGet(_ server: ServerProcess, _ path: String) async throws -> (status: Int, text: String) {
            let transport = ServerProcess.transport(port: server.port, timeout: .seconds(10))
            let (status, _, body) = try await transport(.get, path, [.authorization: "Bearer \(operatorKey)"], nil)
            return (status, String(buffer: body))
        }

        @Test(.timing) func crashesCircuitRestartsAndReadinessOfAWorkerShowInMetrics() async throws {
            let data = try ServerProcess.temporaryFolder("metrics")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data, arguments: ["--app-id", "fixture", "--workers", "1", "--operator-key", Self.operatorKey])
            defer { server.killIfRunning() }
            // The pool's service starts the worker once the server runs: ready when it has said hello.
            _ = try await poll("ready once the worker said hello") { try await Self.operatorGet(server, "/ready").status == 200 ? true : nil }
            let client = server.client()
            for _ in 0..<3 { #expect(try await client.post("/functions/crash").status == 500) }
            #expect(try await client.post("/functions/crash").status == 503)
            let metrics = try await poll("three worker restarts and the app ready again") {
                let metrics = try await Self.operatorGet(server, "/metrics").text
                return metrics.contains(#"cloudlet_worker_restarts_total{app="fixture"} 3"#) && metrics.contains(#"cloudlet_app_ready{app="fixture"} 1"#)
                    ? metrics : nil
            }
            #expect(metrics.contains(#"cloudlet_hook_invocations_total{app="fixture",hook="function:crash",outcome="crash"} 3"#), "\(metrics)")
            #expect(metrics.contains(#"cloudlet_hook_invocations_total{app="fixture",hook="function:crash",outcome="circuit_open"} 1"#))
            #expect(metrics.contains(#"cloudlet_http_requests_total{app="fixture",route="/parse/functions/{name}",status="503"} 1"#))
            #expect(metrics.contains(#"cloudlet_hook_queue_depth{app="fixture"} 0"#))
            #expect(try await Self.operatorGet(server, "/ready").status == 200)
            let (status, _, _) = try await ServerProcess.transport(port: server.port, timeout: .seconds(5))(.get, "/metrics", [:], nil)
            #expect(status == 401)
        }

        @Test(arguments: ServedStore.allCases)
        func cloudletLogsReadsAnAppsHookRunsByHookAndTimeAndFollowsNewOnes(store: ServedStore) async throws {
            let data = try ServerProcess.temporaryFolder("logs")
            defer { try? FileManager.default.removeItem(at: data) }
            // The database named in the commands' environment, as an operator's shell keeps it.
            let environment = try await store.naming().environment
            let server = try await ServerProcess.serve(
                .fixture, data: data, arguments: ["--app-id", "fixture", "--workers", "1", "--log-format", "json"], environment: environment)
            defer { server.killIfRunning() }
            let client = server.client()
            #expect(try await client.post("/functions/log", ["text": "marmalade"])["result"] == "logged")
            _ = try await client.post("/functions/pid")

            let logs = ["logs", "fixture", "--data", data.path]
            let shown = try await poll("the log function's run in cloudlet logs") {
                let run = try await ServerProcess.run(.cloudlet, logs + ["--hook", "function:log", "--since", "10m"], environment: environment)
                return run.stdout.contains("marmalade") ? run : nil
            }
            #expect(shown.ending == .exit(0))
            let lines = shown.stdout.split(separator: "\n")
            #expect(lines.first?.contains("function:log ok") == true, "\(shown.stdout)")
            #expect(lines.contains { $0.contains("notice marmalade") && $0.contains("source=fixture") }, "\(shown.stdout)")
            #expect(!shown.stdout.contains("function:pid"))
            let future = try await ServerProcess.run(.cloudlet, logs + ["--since", "2099-01-01T00:00:00.000Z"], environment: environment)
            #expect(future.ending == .exit(0) && future.stdout.isEmpty)
            let json = try await ServerProcess.run(.cloudlet, logs + ["--json"], environment: environment)
            let runs = try json.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
            #expect(runs.compactMap { $0["hook"]?.stringValue } == ["function:log", "function:pid"])

            let follow = try ServerProcess.start(.cloudlet, arguments: logs + ["--follow", "--hook", "function:log"], environment: environment)
            defer { follow.killIfRunning() }
            _ = try await poll("the first run in the followed log") { follow.stdout.contains("marmalade") ? true : nil }
            _ = try await client.post("/functions/log", ["text": "quince"])
            _ = try await poll("a new run in the followed log") { follow.stdout.contains("quince") ? true : nil }

            let requestLine = try #require(
                server.stderr.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
                    .first { $0["msg"]?.stringValue?.hasSuffix("/functions/log 200") == true })
            let requestId = try #require(requestLine["request_id"]?.stringValue)
            let hookLine = try #require(
                server.stderr.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }.first { $0["msg"] == "marmalade" })
            #expect(hookLine["request_id"]?.stringValue == requestId)
            #expect(hookLine["app"] == "fixture" && hookLine["level"] == "notice")

            _ = try await server.kill()
            let afterStop = try await ServerProcess.run(.cloudlet, logs + ["--hook", "function:log"], environment: environment)
            #expect(afterStop.stdout.contains("quince"), "cloudlet logs reads the database without a server")
            let unknown = try await ServerProcess.run(.cloudlet, ["logs", "nope", "--data", data.path], environment: environment)
            #expect(unknown.ending != .exit(0) && unknown.stderr.contains("no app nope"))
        }
    }
}
