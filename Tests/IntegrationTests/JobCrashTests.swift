import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// A job run is queued work: a server killed mid-run runs the job again on its next start
    /// (at least once), and its `_JobStatus` goes from running to how the new run ended.
    @Suite struct JobCrashTests {
        @Test func aJobCutOffByAKillRunsAgainOnTheNextStartAndSucceeds() async throws {
            let data = try ServerProcess.temporaryFolder("job-crash")
            defer { try? FileManager.default.removeItem(at: data) }
            let crashing = try await ServerProcess.serve(.fixture, data: data)
            defer { crashing.killIfRunning() }
            let keys = crashing.banner
            let started = try await crashing.client().post("/jobs/hangOnce", [:], master: true)
            #expect(started.status == 200, "\(started.body)")
            let id = try #require(started["jobStatusId"]?.stringValue)
            _ = try await poll("the job to start") { crashing.stderr.contains("job hanging: \(id)") ? true : nil }
            #expect(try await crashing.kill() == .signal(SIGKILL))

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            let client = restarted.client(masterKey: keys.masterKey)
            let running = try await client.get("/classes/_JobStatus/\(id)", master: true)
            #expect(running["status"] != "failed", "the run is not failed for its server's stop: \(running.body)")
            // The new server, sole holder of the folder's queue, takes it back at once (rather than
            // when its 10 s lease runs out) and runs it again.
            let run = try await poll(timeout: .seconds(30), "the run to end") {
                let reply = try await client.get("/classes/_JobStatus/\(id)", master: true)
                return reply["status"] == "running" ? ParseValue?.none : reply.body
            }
            #expect(run["status"] == "succeeded", "\(run)")
            #expect(try await client.query("JobLog", where: ["runId": .string(id)]).count == 1)
            #expect(restarted.stderr.contains("took back queued work an ended process held"), "\(restarted.stderr)")

            // Done is done: another restart does not run it again.
            #expect(try await restarted.stop() == .exit(0))
            let again = try await ServerProcess.serve(.fixture, data: data)
            defer { again.killIfRunning() }
            let job = try await again.client(masterKey: keys.masterKey).post("/jobs/report", [:], master: true)
            let reportId = try #require(job["jobStatusId"]?.stringValue)
            _ = try await JobProcessTests.ended(again.client(masterKey: keys.masterKey), reportId)
            #expect(try await again.client(masterKey: keys.masterKey).query("JobLog").count == 1)
            #expect(try await again.stop() == .exit(0))
        }

        @Test(.timing) func aJobRunningAtAGracefulStopIsHandedBackAndRunsAtTheNextStart() async throws {
            let data = try ServerProcess.temporaryFolder("job-stop")
            defer { try? FileManager.default.removeItem(at: data) }
            let stopping = try await ServerProcess.serve(.fixture, data: data)
            defer { stopping.killIfRunning() }
            let keys = stopping.banner
            let started = try await stopping.client().post("/jobs/hangOnce", [:], master: true)
            let id = try #require(started["jobStatusId"]?.stringValue, "\(started.body)")
            _ = try await poll("the job to start") { stopping.stderr.contains("job hanging: \(id)") ? true : nil }
            #expect(try await stopping.stop() == .exit(0), "the stop cancels the run rather than waiting a minute for it")

            let restarted = try await ServerProcess.serve(.fixture, data: data)
            defer { restarted.killIfRunning() }
            let client = restarted.client(masterKey: keys.masterKey)
            // Handed back, the run is due at once: sooner than the 10 s a lease takes to run out.
            let run = try await poll(timeout: .seconds(8), "the run to end") {
                let reply = try await client.get("/classes/_JobStatus/\(id)", master: true)
                return reply["status"] == "running" ? ParseValue?.none : reply.body
            }
            #expect(run["status"] == "succeeded", "\(run)")
            #expect(try await client.query("JobLog", where: ["runId": .string(id)]).count == 1)
            #expect(try await restarted.stop() == .exit(0))
        }
    }
}
