import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// SIGTERM lets requests in flight finish, then the process exits cleanly.
    @Suite struct GracefulShutdownTests {
        @Test(.timing) func requestInFlightFinishesAfterSIGTERM() async throws {
            let data = try ServerProcess.temporaryFolder("shutdown")
            defer { try? FileManager.default.removeItem(at: data) }

            let server = try await ServerProcess.serve(.fixture, data: data)
            defer { server.killIfRunning() }
            let client = server.client()
            #expect(try await client.post("/functions/slow", ["ms": 0])["result"] == "done")

            let slow = Task { try await client.post("/functions/slow", ["ms": 1500]) }
            defer { slow.cancel() }
            try await Task.sleep(for: .milliseconds(300))
            server.send(SIGTERM)
            let reply = try await slow.value
            #expect(reply.status == 200)
            #expect(reply.body == ["result": "done"])
            #expect(try await server.waitForExit(timeout: .seconds(15)) == .exit(0))
        }

        /// Starting and stopping with workers must end cleanly every time (a shutdown race once
        /// crashed libdispatch in about one stop in four).
        @Test func workersEndedOnPurposeLogANormalStopNotTheSignalThatEndedThem() async throws {
            let data = try ServerProcess.temporaryFolder("stops")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--log-level", "info"])
            defer { server.killIfRunning() }
            #expect(try await server.client().post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!")
            server.send(SIGHUP)
            _ = try await poll("the drained worker's stop") { server.stderr.contains("stopping worker") ? true : nil }
            _ = try await poll("a hook answered by the new worker") {
                try await server.client().post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!" ? true : nil
            }
            #expect(try await server.stop() == .exit(0))
            let log = server.stderr
            #expect(log.contains("worker stopped"), "\(log)")
            #expect(!log.contains("signal"), "\(log)")
            #expect(!log.contains("killing worker"), "\(log)")
        }

        @Test func repeatedStopsWithWorkersExitCleanly() async throws {
            for _ in 0..<8 {
                let data = try ServerProcess.temporaryFolder("restart")
                defer { try? FileManager.default.removeItem(at: data) }
                let server = try await ServerProcess.serve(.cloudlet, data: data)
                defer { server.killIfRunning() }
                #expect(try await server.client().post("/functions/hello", ["name": "Ada"])["result"] == "Hello, Ada!")
                #expect(try await server.stop() == .exit(0))
            }
        }
    }
}
