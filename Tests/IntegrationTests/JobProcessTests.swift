import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import PostgresTestServer
import Testing

extension ProcessTests {
    /// Background jobs in a real server whose hooks run in a worker process: a job past its time
    /// limit is killed with its worker, progress travels from the worker to `_JobStatus`, and the
    /// `cloudlet jobs` commands schedule, list, run and show jobs (kept in SQLite files or in PostgreSQL).
    @Suite struct JobProcessTests {
        typealias TwoApps = IsolationTests.TwoApps

        /// The run `id`'s `_JobStatus` once it no longer runs.
        static func ended(_ client: ParseTestClient, _ id: String) async throws -> ParseValue {
            try await poll("job run \(id) to end") {
                let reply = try await client.get("/classes/_JobStatus/\(id)", master: true)
                // `.none`, not `nil`: a ParseValue reads `nil` as JSON null.
                guard reply.status == 200, reply["status"] != "running" else { return ParseValue?.none }
                return reply.body
            }
        }

        @Test(.timing) func aJobPastItsTimeLimitIsKilledWithItsWorkerAndFails() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let worker = try await apps.fixtureWorker()
            let started = ContinuousClock.now
            let reply = try await apps.fixture.post("/jobs/spinJob", [:], master: true)
            #expect(reply.status == 200)
            #expect(ContinuousClock.now - started < .milliseconds(900), "the answer does not wait for the job")
            let id = try #require(reply["jobStatusId"]?.stringValue)
            let run = try await Self.ended(apps.fixture, id)
            #expect(run["status"] == "failed")
            #expect(run["message"]?.stringValue?.contains("timed out") == true, "\(run)")
            #expect(try await apps.fixtureWorker() != worker, "the spinning worker was killed and replaced")
            try await apps.expectOtherAppAnswers()
        }

        @Test func progressTravelsFromTheWorkerToTheRunsStatus() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let reply = try await apps.fixture.post("/jobs/report", ["steps": 3], master: true)
            let id = try #require(reply["jobStatusId"]?.stringValue, "\(reply.body)")
            let run = try await Self.ended(apps.fixture, id)
            #expect(run["status"] == "succeeded")
            #expect(run["message"] == "step 3 of 3")
            #expect(run["params"] == ["steps": 3])
        }

        @Test(arguments: ServedStore.allCases)
        func theJobsCommandsScheduleListRunAndShowJobs(store: ServedStore) async throws {
            let naming = try await store.naming()
            let apps = try await TwoApps.start(environment: naming.environment)
            defer { apps.stop() }
            let data = ["--data", apps.data.path] + naming.arguments
            let scheduled = try await ServerProcess.run(.fixture, ["jobs", "schedule", "fixture", "report", "*/5 * * * *"] + data)
            #expect(scheduled.ending == .exit(0), "\(scheduled.stderr)")
            let refused = try await ServerProcess.run(.fixture, ["jobs", "schedule", "fixture", "report", "*/5 * *"] + data)
            #expect(refused.ending == .exit(1))
            #expect(refused.stderr.contains("has 3 fields"), "\(refused.stderr)")

            let server = "http://127.0.0.1:\(apps.server.port)/parse"
            let key = try #require(apps.server.banner.masterKey)
            let ran = try await ServerProcess.run(
                .fixture, ["jobs", "run", "fixture", "report", "--params", #"{"steps":2}"#, "--server", server, "--master-key", key, "--wait"])
            #expect(ran.ending == .exit(0), "\(ran.stderr)")
            #expect(ran.stdout.contains("report succeeded source=api"), "\(ran.stdout)")
            #expect(ran.stdout.contains(#"message="step 2 of 2""#), "\(ran.stdout)")
            let id = try #require(ran.stdout.split(separator: " ").first.map(String.init))

            let unknown = try await ServerProcess.run(.fixture, ["jobs", "run", "fixture", "nothing", "--server", server, "--master-key", key])
            #expect(unknown.ending == .exit(1))
            #expect(unknown.stderr.contains("Invalid job."), "\(unknown.stderr)")

            let shown = try await ServerProcess.run(.fixture, ["jobs", "status", "fixture", id, "--json"] + data)
            #expect(shown.ending == .exit(0), "\(shown.stderr)")
            let status = try JSONParser.parse(Array(shown.stdout.utf8))
            #expect(status["status"] == "succeeded")
            #expect(status["objectId"] == .string(id))

            let listed = try await ServerProcess.run(.fixture, ["jobs", "list", "fixture"] + data)
            #expect(listed.ending == .exit(0), "\(listed.stderr)")
            let lines = listed.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            let report = try #require(lines.first { $0.first == "report" }, "\(listed.stdout)")
            #expect(report[1] == "*/5 * * * *")
            #expect(report[2].hasPrefix("next=") && report[2] != "next=-")
            #expect(report[3].hasPrefix("last=") && report[3].contains("succeeded \(id)"))
            #expect(lines.contains { $0.first == "spinJob" && $0.dropFirst().first == "not scheduled" }, "the binary's own jobs are listed")

            let unscheduled = try await ServerProcess.run(.fixture, ["jobs", "unschedule", "fixture", "report"] + data)
            #expect(unscheduled.ending == .exit(0), "\(unscheduled.stderr)")
            let again = try await ServerProcess.run(.fixture, ["jobs", "unschedule", "fixture", "report"] + data)
            #expect(again.ending == .exit(1))
        }

        @Test func jobsTheAppsHooksDoNotDefineAreNotScheduled() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let data = ["--data", apps.data.path]
            // "fixture" runs this binary's own hooks; "other" runs the cloudlet binary's, which have no job.
            for (app, job) in [("fixture", "nosuch"), ("other", "report")] {
                let refused = try await ServerProcess.run(.fixture, ["jobs", "schedule", app, job, "0 3 * * *"] + data)
                #expect(refused.ending == .exit(1))
                #expect(refused.stderr.contains(#"error: app "\#(app)" has no job \#(job)"#), "\(refused.stderr)")
            }
            let listed = try await ServerProcess.run(.fixture, ["jobs", "list", "other", "--json"] + data)
            #expect(listed.stdout.isEmpty, "nothing was scheduled: \(listed.stdout)")
        }

        @Test(arguments: ServedStore.allCases)
        func emptyJobListsAndRunListsSaySo(store: ServedStore) async throws {
            let naming = try await store.naming()
            let apps = try await TwoApps.start(environment: naming.environment)
            defer { apps.stop() }
            let data = ["--data", apps.data.path] + naming.arguments
            let none = try await ServerProcess.run(.fixture, ["jobs", "list", "other"] + data)
            #expect(none.ending == .exit(0), "\(none.stderr)")
            #expect(none.stdout.hasPrefix("no jobs\n"), "\(none.stdout)")
            let noRuns = try await ServerProcess.run(.fixture, ["jobs", "status", "other"] + data)
            #expect(noRuns.ending == .exit(0), "\(noRuns.stderr)")
            #expect(noRuns.stdout == "no runs\n")
            let noRunsOfOne = try await ServerProcess.run(.fixture, ["jobs", "status", "fixture", "--job", "report"] + data)
            #expect(noRunsOfOne.stdout == "no runs of job report\n")
        }

        @Test func invokeRunsAJobToItsEnd() async throws {
            let folder = try ServerProcess.temporaryFolder("invoke")
            defer { try? FileManager.default.removeItem(at: folder) }
            let input = folder.appendingPathComponent("params.json")
            try Data(#"{"steps":2}"#.utf8).write(to: input)
            let run = try await ServerProcess.run(.fixture, ["invoke", "job:report", "--input", input.path, "--master"])
            #expect(run.ending == .exit(0), "\(run.stderr)")
            let status = try JSONParser.parse(Array(run.stdout.utf8))
            #expect(status["status"] == "succeeded")
            #expect(status["message"] == "step 2 of 2")
        }
    }
}
